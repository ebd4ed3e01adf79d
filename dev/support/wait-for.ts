import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { watchObject } from '../../client/kube/watch-object.js';
import type { ResourceType } from '../../client/kube/resource-type.js';

/** Any object shape will do: client-node's models (V1ConfigMap, ...) as well as our plain ones. */
type Watched = { metadata?: { resourceVersion?: string } };

export interface WaitForOptions<T extends Watched> {
  type: ResourceType;
  name: string;
  namespace?: string;
  /** Called with the object's current state, or undefined while it does not exist. */
  until: (object: T | undefined) => boolean;
  timeoutMs?: number;
  /** What is awaited, for the timeout message ("ConfigMap child deleted"). */
  description?: string;
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/**
 * Resolves with the object's state once `until` holds. Lists the one object, then watches it from
 * that resourceVersion, so no change in between is missed; starts over with a fresh list when the
 * watch ends (for example with 410 Gone). No polling, no sleeping.
 */
export async function waitFor<T extends Watched>(
  kubeConfig: ClusterAccess,
  options: WaitForOptions<T>,
): Promise<T | undefined> {
  const client = new ApiClient(kubeConfig);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const what =
    options.description ??
    `${options.type.kind} ${options.namespace ? `${options.namespace}/` : ''}${options.name}`;
  const selection = {
    namespace: options.namespace,
    fieldSelector: `metadata.name=${options.name}`,
  };
  const abort = new AbortController();
  let last: T | undefined;
  let timer: NodeJS.Timeout | undefined;

  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // A finalizer that holds a deletion up is what a timed-out wait most often needs.
      const meta = (last?.metadata ?? {}) as { deletionTimestamp?: unknown; finalizers?: unknown };
      const state = last
        ? JSON.stringify({
            resourceVersion: last.metadata?.resourceVersion,
            deletionTimestamp: meta.deletionTimestamp,
            finalizers: meta.finalizers,
            status: (last as { status?: unknown }).status,
          })
        : 'absent';
      reject(
        new WaitTimeoutError(
          `Timed out after ${timeoutMs / 1000}s waiting for ${what}; last state: ${state}`,
        ),
      );
    }, timeoutMs);
  });

  const satisfied = async (): Promise<T | undefined> => {
    for (;;) {
      const list = await client.list<KubeObject>(options.type, selection);
      last = list.items[0] as T | undefined;
      if (options.until(last)) return last;
      try {
        const watched = await watchObject<KubeObject>(
          client,
          {
            type: options.type,
            name: options.name,
            namespace: options.namespace,
            resourceVersion: list.resourceVersion,
          },
          {
            last,
            onChange: (object) => (last = object as T | undefined),
            until: (object) => options.until(object as T | undefined),
            signal: abort.signal,
          },
        );
        if (watched.reached) return last;
      } catch {
        continue; // the watch broke: list again
      }
      if (abort.signal.aborted) throw new Error('aborted');
    }
  };

  try {
    return await Promise.race([satisfied(), timedOut]);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

export interface WaitForListOptions<T extends KubeObject> {
  type: ResourceType;
  namespace?: string;
  labelSelector?: string;
  /** Called with every object of the selection after each change. */
  until: (objects: T[]) => boolean;
  timeoutMs?: number;
  description: string;
}

/** Like waitFor, for a whole collection: list, then watch, until `until` holds for the current set. */
export async function waitForList<T extends KubeObject>(
  kubeConfig: ClusterAccess,
  options: WaitForListOptions<T>,
): Promise<T[]> {
  const client = new ApiClient(kubeConfig);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const abort = new AbortController();
  let current = new Map<string, T>();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new WaitTimeoutError(
            `Timed out after ${timeoutMs / 1000}s waiting for ${options.description} (${current.size} objects)`,
          ),
        ),
      timeoutMs,
    );
  });
  const satisfied = async (): Promise<T[]> => {
    for (;;) {
      const list = await client.list<T>(options.type, {
        namespace: options.namespace,
        labelSelector: options.labelSelector,
      });
      current = new Map(list.items.map((item) => [item.metadata!.name!, item]));
      if (options.until([...current.values()])) return [...current.values()];
      let done = false;
      try {
        await client.watch<T>(
          options.type,
          {
            namespace: options.namespace,
            labelSelector: options.labelSelector,
            resourceVersion: list.resourceVersion,
          },
          (event) => {
            if (event.type === 'BOOKMARK' || done) return;
            if (event.type === 'DELETED') current.delete(event.object.metadata!.name!);
            else current.set(event.object.metadata!.name!, event.object);
            if (options.until([...current.values()])) {
              done = true;
              abort.abort();
            }
          },
          abort.signal,
        );
      } catch {
        if (!done && !abort.signal.aborted) continue;
      }
      if (done) return [...current.values()];
      if (abort.signal.aborted) throw new Error('aborted');
    }
  };
  try {
    return await Promise.race([satisfied(), timedOut]);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
