import type { KubeObject, Stored } from '../kube/objects.js';
import type { NamespacedType } from '../../client/kube/resource-type.js';
import type { ControllerPorts } from '../runtime/ports.js';

/** Where a controller reads objects: its caches (which may lag, or not hold a kind) and the API. */
export interface ObjectSource {
  cached<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace: string,
  ): Stored<T> | undefined | Promise<Stored<T> | undefined>;
  live<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace: string,
  ): Promise<Stored<T> | undefined>;
}

/**
 * The object from the cache, else a live read: a cache that has not seen a create yet must not
 * make a step create the object twice (docs/adr/0041-one-step-engine.md).
 */
export async function current<T extends KubeObject>(
  source: ObjectSource,
  type: NamespacedType,
  name: string,
  namespace: string,
): Promise<Stored<T> | undefined> {
  return (await source.cached<T>(type, name, namespace)) ?? source.live<T>(type, name, namespace);
}

/** A controller's ports as a source: the shared caches (started on first read) and the client. */
export function portsSource(ports: Pick<ControllerPorts, 'cache' | 'client'>): ObjectSource {
  return {
    cached: async <T extends KubeObject>(type: NamespacedType, name: string, namespace: string) =>
      (await ports.cache.read<T>(type)).get(name, namespace),
    live: <T extends KubeObject>(type: NamespacedType, name: string, namespace: string) =>
      ports.client.getOrUndefined<T>(type, name, namespace),
  };
}
