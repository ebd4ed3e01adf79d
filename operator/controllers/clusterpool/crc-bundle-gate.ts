import type { ClusterPool, CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { WatchSpec } from '../../runtime/manager.js';
import { objectKey } from '../../kube/objects.js';
import { bundleNameOf, consumerRefusal, namespaceLabels } from '../bundle-consumers.js';
import { refused } from './crc-version-gate.js';
import type { Pool } from './pool-conditions.js';
import { PoolReason } from './pool-conditions.js';
import type { InstanceRelease } from './pool-instance.js';

type PoolStatus = NonNullable<ClusterPool['status']>;

/**
 * A bundle's consumers (spec.consumers.namespaceSelector, docs/reference/kinds.md#crcbundle): a
 * crc pool whose crcBundleRef, crcVersion or followed stream leads to a bundle that does not
 * select the pool's namespace gets no instance; its conditions say CRCBundleNotAllowed, naming
 * the bundle and its selector, with a Warning Event. A bundle that does not exist (yet) refuses
 * nothing here: the pool's instances wait for it, and the instance controller asks again before
 * any clone. Returns the status to write, or undefined when the pool may go on.
 */
export async function refusedBundle(
  ports: ControllerPorts,
  pool: Pool,
  template: ClusterPool['spec']['template'] | InstanceRelease,
  status: PoolStatus,
): Promise<PoolStatus | undefined> {
  if (pool.spec.type !== 'crc') return undefined;
  const name = bundleNameOf({ ...pool.spec.template, ...template });
  const bundle = name ? (await ports.cache.read<CRCBundle>(BUNDLES)).get(name) : undefined;
  if (!bundle) return undefined;
  const namespace = pool.metadata.namespace;
  const labels = await namespaceLabels(ports, namespace);
  const message = consumerRefusal(bundle, { name: namespace, labels });
  return message
    ? refused(ports, pool, PoolReason.CRCBundleNotAllowed, message, status)
    : undefined;
}

/**
 * A bundle that comes, goes or changes its consumers concerns the crc pools that may use it:
 * those that name it (crcBundleRef, crcVersion) and those that follow a stream (its bundle
 * version is theirs to resolve). Status writes of the bundle concern none of them.
 */
export function bundleConsumersWatch(pools: () => ClusterPool[]): WatchSpec {
  return {
    type: BUNDLES,
    mapChange: (previous, current) => {
      const [was, now] = [previous as CRCBundle | undefined, current as CRCBundle | undefined];
      if (was && now && sameContent(was.spec?.consumers ?? {}, now.spec?.consumers ?? {}))
        return [];
      const name = (now ?? was)?.metadata?.name;
      return pools()
        .filter(
          (pool) =>
            pool.spec.type === 'crc' &&
            (!!pool.spec.template.versionStreamRef || bundleNameOf(pool.spec.template) === name),
        )
        .map((pool) => objectKey(pool as KubeObject));
    },
  };
}
