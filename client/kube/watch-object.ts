import type { ApiClient } from './api-client.js';
import type { KubeObject } from './objects.js';
import type { ResourceType } from './resource-type.js';

/** One object of a kind, by name, and the resourceVersion its changes are followed from. */
export interface WatchedObject {
  type: ResourceType;
  name: string;
  namespace?: string;
  resourceVersion: string;
}

export interface WatchObjectOptions<T> {
  /** The state at the resourceVersion: what is returned if the stream ends without a change. */
  last: T | undefined;
  /** Whether the state seen (undefined: deleted) is the one waited for; ends the stream. */
  until: (object: T | undefined) => boolean;
  /** Called with every change, before `until`. */
  onChange?: (object: T | undefined) => void;
  /** Ends the stream; the last state seen is returned. */
  signal: AbortSignal;
  /** The apiserver ends the stream after this long. */
  timeoutSeconds?: number;
}

/** The last state a watch saw, and whether it is the one waited for. */
export interface WatchedState<T> {
  object: T | undefined;
  reached: boolean;
}

/**
 * Follows one object's changes from a resourceVersion until `until` holds, the stream ends
 * (a server timeout or 410 Gone: the caller reads the object and watches again) or `signal`
 * aborts. The one watch loop behind the lease client's wait and the tests' waits; an error of the
 * stream is thrown unless the wait was already over.
 */
export async function watchObject<T extends KubeObject>(
  api: ApiClient,
  from: WatchedObject,
  options: WatchObjectOptions<T>,
): Promise<WatchedState<T>> {
  const done = new AbortController();
  const signal = AbortSignal.any([options.signal, done.signal]);
  const state: WatchedState<T> = { object: options.last, reached: false };
  try {
    await api.watch<T>(
      from.type,
      {
        namespace: from.namespace,
        fieldSelector: `metadata.name=${from.name}`,
        resourceVersion: from.resourceVersion,
        ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
      },
      (event) => {
        if (event.type === 'BOOKMARK' || state.reached) return;
        state.object = event.type === 'DELETED' ? undefined : event.object;
        options.onChange?.(state.object);
        if (options.until(state.object)) {
          state.reached = true;
          done.abort();
        }
      },
      signal,
    );
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return state;
}
