import { NAMESPACES } from '../../client/api/resources.js';
import type { KubeObject } from '../kube/objects.js';
import { objectKey, splitKey } from '../kube/objects.js';
import type { NamespacedType } from '../../client/kube/resource-type.js';
import type { OperatorScope } from '../operator-scope.js';
import { carriesScope } from '../operator-scope.js';
import type { CacheReader } from '../runtime/cache.js';
import type { ControllerRegistration } from '../runtime/manager.js';
import type { ControllerPorts } from '../runtime/ports.js';

/** Whom an operator serves (docs/install.md#two-operators-side-by-side): its scope, and its own namespace. */
export interface ServedScope {
  scope?: OperatorScope;
  operatorNamespace: string;
}

/** Whether the operator serves a namespace's objects, by the Namespace as the cache holds it. */
export function servesCachedNamespace(
  cache: CacheReader,
  served: ServedScope,
  namespace: string,
): boolean {
  if (!served.scope || namespace === served.operatorNamespace) return true;
  return carriesScope(served.scope, cache.view<KubeObject>(NAMESPACES).get(namespace));
}

/**
 * Whether the operator serves a namespace's objects: from the Namespace cache, read live when
 * the cache does not hold the namespace (yet), as the namespace policy does.
 */
async function servesNamespace(
  ports: Pick<ControllerPorts, 'cache' | 'client'>,
  served: ServedScope,
  namespace: string,
): Promise<boolean> {
  if (!served.scope || namespace === served.operatorNamespace) return true;
  const cached = (await ports.cache.read<KubeObject>(NAMESPACES)).get(namespace);
  const current = cached ?? (await ports.client.getOrUndefined<KubeObject>(NAMESPACES, namespace));
  return carriesScope(served.scope, current);
}

/**
 * A controller of a namespaced kind that leaves the keys of namespaces outside the operator's
 * scope alone; a Namespace that comes into the scope (its labels change) queues the objects of
 * that kind it holds. A Namespace the cache adds queues nothing: its objects, if any, come with
 * their own adds. Unchanged without a scope.
 */
export function scopedTo(
  registration: ControllerRegistration,
  ports: Pick<ControllerPorts, 'cache' | 'client'>,
  served: ServedScope,
): ControllerRegistration {
  const { scope } = served;
  if (!scope) return registration;
  const type = registration.forType as NamespacedType;
  const joined = (previous: KubeObject | undefined, current: KubeObject | undefined): string[] =>
    previous && current && carriesScope(scope, current) && !carriesScope(scope, previous)
      ? ports.cache.view<KubeObject>(type).list(current.metadata?.name).map(objectKey)
      : [];
  return {
    ...registration,
    watches: [...(registration.watches ?? []), { type: NAMESPACES, mapChange: joined }],
    reconcile: async (key, context) =>
      (await servesNamespace(ports, served, splitKey(key).namespace ?? ''))
        ? registration.reconcile(key, context)
        : {},
  };
}
