import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';

/** One version of an object as the apiserver reported it (each write that changed it is one). */
export interface Version<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The etcd revision of the write; revisions of one store compare across kinds. */
  revision: bigint;
  object: T;
}

/**
 * Every version of the objects of one kind in a namespace, from now on, as a watch delivers
 * them: how many writes something took, and in which order they came. Stop it with `stop()`.
 */
export class ObjectHistory<T extends KubeObject> {
  readonly versions: Version<T>[] = [];
  private readonly abort = new AbortController();
  private readonly waiters: { until: (v: Version<T>) => boolean; resolve: () => void }[] = [];

  private constructor() {}

  static async start<T extends KubeObject>(
    api: ApiClient,
    type: ResourceType,
    namespace: string,
  ): Promise<ObjectHistory<T>> {
    const history = new ObjectHistory<T>();
    const { resourceVersion } = await api.list(type, { namespace });
    void api
      .watch<T>(
        type,
        { namespace, resourceVersion },
        (event) => {
          if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED')
            return;
          history.add({
            type: event.type,
            revision: BigInt(event.object.metadata?.resourceVersion ?? '0'),
            object: event.object,
          });
        },
        history.abort.signal,
      )
      .catch(() => undefined);
    return history;
  }

  /** Resolves once a version for which `until` holds has arrived. */
  seen(until: (version: Version<T>) => boolean): Promise<void> {
    if (this.versions.some(until)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ until, resolve }));
  }

  private add(version: Version<T>): void {
    this.versions.push(version);
    for (const waiter of this.waiters.filter((w) => w.until(version))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** The versions of the object of this name, in order. */
  of(name: string): Version<T>[] {
    return this.versions.filter((v) => v.object.metadata?.name === name);
  }

  stop(): void {
    this.abort.abort();
  }
}
