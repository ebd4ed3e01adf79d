import type { CRCBundle } from '../../client/api/resources.js';
import { NAMESPACES } from '../../client/api/resources.js';
import type { KubeObject } from '../kube/objects.js';
import { describeSelector, selects } from '../kube/label-selector.js';
import type { ControllerPorts } from '../runtime/ports.js';
import { crcBundleName } from '../../contracts/names.js';

/** The reason, on a pool's and an instance's conditions and in their Event. */
export const CRC_BUNDLE_NOT_ALLOWED = 'CRCBundleNotAllowed';

/** The CRCBundle a crc template leads to: crcBundleRef, else `crc-<crcVersion>-<arch>`. */
export function bundleNameOf(template: {
  crcBundleRef?: { name: string };
  crcVersion?: string;
  crcArch?: string;
}): string | undefined {
  if (template.crcBundleRef?.name) return template.crcBundleRef.name;
  return template.crcVersion ? crcBundleName(template.crcVersion, template.crcArch) : undefined;
}

/**
 * Why a namespace may not use a bundle (docs/reference/kinds.md#crcbundle): its
 * spec.consumers.namespaceSelector does not select the namespace. Undefined when it may: no
 * selector (every opted-in namespace, as before consumers existed), or one that selects it.
 */
export function consumerRefusal(
  bundle: Pick<CRCBundle, 'spec'> & KubeObject,
  namespace: { name: string; labels: Record<string, string> | undefined },
): string | undefined {
  const selector = bundle.spec?.consumers?.namespaceSelector;
  if (!selector || selects(selector, namespace.labels)) return undefined;
  return (
    `CRCBundle ${bundle.metadata?.name} may be used only by namespaces its ` +
    `spec.consumers.namespaceSelector selects (${describeSelector(selector)}), and namespace ` +
    `${namespace.name} is not one of them: ask the bundle's admin to select it, or use another bundle`
  );
}

/** A namespace's labels, from the cache (read live when the cache does not know it yet). */
export async function namespaceLabels(
  ports: Pick<ControllerPorts, 'cache' | 'client'>,
  name: string,
): Promise<Record<string, string> | undefined> {
  const cached = (await ports.cache.read<KubeObject>(NAMESPACES)).get(name);
  const namespace = cached ?? (await ports.client.getOrUndefined<KubeObject>(NAMESPACES, name));
  return namespace?.metadata?.labels;
}
