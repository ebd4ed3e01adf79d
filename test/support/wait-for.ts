import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { KubernetesObjectApi, Watch } from '@kubernetes/client-node';
import type { ResourceType } from './resource-type.js';
import { collectionPath } from './resource-type.js';

export interface WaitForOptions<T extends KubernetesObject> {
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
 * that resourceVersion, so no change in between is missed; restarts with a fresh list when the
 * watch ends (for example with 410 Gone). No polling, no sleeping.
 */
export async function waitFor<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  options: WaitForOptions<T>,
): Promise<T | undefined> {
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const watch = new Watch(kubeConfig);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const what =
    options.description ??
    `${options.type.kind} ${options.namespace ? `${options.namespace}/` : ''}${options.name}`;
  const fieldSelector = `metadata.name=${options.name}`;
  let last: T | undefined;
  let abort: AbortController | undefined;
  let settled = false;

  return new Promise<T | undefined>((resolve, reject) => {
    const finish = (error: Error | undefined, value?: T): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      abort?.abort();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => {
      const state = last
        ? JSON.stringify({
            metadata: { resourceVersion: last.metadata?.resourceVersion },
            status: (last as { status?: unknown }).status,
          })
        : 'absent';
      finish(
        new WaitTimeoutError(
          `Timed out after ${timeoutMs / 1000}s waiting for ${what}; last state: ${state}`,
        ),
      );
    }, timeoutMs);

    const check = (object: T | undefined): boolean => {
      last = object;
      if (!options.until(object)) return false;
      finish(undefined, object);
      return true;
    };

    const listThenWatch = async (): Promise<void> => {
      const list = await objects.list<T>(
        options.type.apiVersion,
        options.type.kind,
        options.type.namespaced ? options.namespace : undefined,
        undefined,
        undefined,
        undefined,
        fieldSelector,
      );
      if (settled || check(list.items[0])) return;
      abort = await watch.watch(
        collectionPath(options.type, options.namespace),
        {
          fieldSelector,
          resourceVersion: list.metadata?.resourceVersion,
          allowWatchBookmarks: true,
        },
        (phase: string, object: T) => {
          if (phase === 'ADDED' || phase === 'MODIFIED') check(object);
          else if (phase === 'DELETED') check(undefined);
        },
        () => {
          // The stream ended (server timeout, 410 Gone, connection loss): start over from a list.
          if (!settled) restart();
        },
      );
      if (settled) abort.abort();
    };
    const restart = (): void => {
      listThenWatch().catch((error: unknown) =>
        finish(error instanceof Error ? error : new Error(String(error))),
      );
    };
    restart();
  });
}
