import type { ApiClient } from '../../../client/kube/api-client.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { KubeObject } from '../../../operator/kube/objects.js';

/**
 * Keeps `onChange` told of every object of a type in a namespace, by name, until `signal` aborts:
 * a list, then a watch from its resourceVersion, and a fresh list whenever the watch ends.
 */
export async function watchCollection<T extends KubeObject>(
  api: ApiClient,
  type: ResourceType,
  namespace: string,
  onChange: (objects: ReadonlyMap<string, T>) => void,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    const list = await api.list<T>(type, { namespace });
    const current = new Map(list.items.map((item) => [item.metadata!.name!, item]));
    onChange(current);
    try {
      await api.watch<T>(
        type,
        { namespace, resourceVersion: list.resourceVersion },
        (event) => {
          if (event.type === 'BOOKMARK') return;
          if (event.type === 'DELETED') current.delete(event.object.metadata!.name!);
          else current.set(event.object.metadata!.name!, event.object);
          onChange(current);
        },
        signal,
      );
    } catch (error) {
      if (signal.aborted) return;
      void error; // the watch broke: list again
    }
  }
}
