import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { OperatorScope } from '../../operator-scope.js';
import { crcBundleName, DEFAULT_CRC_ARCH } from '../../../contracts/names.js';
import type { Pool } from './pool-conditions.js';

/**
 * The CRCBundle `crc-<version>-<arch>` that a crc pool's instances clone (the template's
 * crcVersion, or the bundle version of the stream it follows): created once with no owner, never
 * updated or adopted, shared by every pool of that version. It carries the labels of the
 * operator's scope, so that this operator prepares it.
 */
export async function ensureBundle(
  ports: ControllerPorts,
  pool: Pool,
  { version, scope }: { version: string; scope?: OperatorScope },
  context: ReconcileContext,
): Promise<void> {
  const arch = pool.spec.template.crcArch || DEFAULT_CRC_ARCH;
  const name = crcBundleName(version, arch);
  if ((await ports.cache.read<CRCBundle>(BUNDLES)).get(name)) return;
  const created = await ports.client.createIfAbsent<CRCBundle>(BUNDLES, {
    apiVersion: BUNDLES.apiVersion,
    kind: BUNDLES.kind,
    metadata: scope ? { name, labels: { ...scope.labels } } : { name },
    spec: {
      version,
      arch,
      storageClassName: pool.spec.template.storageClassName,
    },
  });
  if (created) context.logger.info({ bundle: name }, 'Created CRCBundle for pool');
}
