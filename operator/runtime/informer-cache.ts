import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject, Stored } from '../kube/objects.js';
import { objectKey } from '../kube/objects.js';
import type { NamespacedType, ResourceType } from '../../client/kube/resource-type.js';
import { typeName } from '../../client/kube/resource-type.js';
import type { BackoffPolicy } from './backoff.js';
import type { CacheIndex, CacheReader, CacheView } from './cache.js';
import type { Clock } from './clock.js';
import type { InformerOptions } from './informer.js';
import { Informer } from './informer.js';
import type { Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';

/** How long a read waits for a kind's first list before it fails (and its reconcile retries). */
const DEFAULT_SYNC_TIMEOUT_MS = 60_000;

export interface InformerCacheOptions {
  client: ApiClient;
  /** Namespaced kinds of this namespace only; cluster-scoped kinds are cached whole. */
  namespace?: string;
  logger: Logger;
  metrics: RuntimeMetrics;
  clock: Clock;
  watchBackoff?: BackoffPolicy;
  watchTimeoutSeconds?: number;
  syncTimeoutMs?: number;
}

class CacheStoppedError extends Error {
  override name = 'CacheStoppedError';
}

/**
 * One informer per kind, shared by every controller of the manager. The informers that exist when
 * the manager starts are synced before any controller runs; one made later (a kind first read
 * inside a reconcile) starts at once, as controller-runtime's informer map does, and its readers
 * wait for its first list.
 */
export class InformerCache implements CacheReader {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  /** Label selectors that limit what the cache of a kind holds, by `apiVersion/plural`. */
  private readonly selectors = new Map<string, string>();
  private readonly stopping = new AbortController();
  private running = false;

  constructor(private readonly options: InformerCacheOptions) {}

  /** Caches only the objects of a kind that match `labelSelector`. Before the kind's first use. */
  restrict(type: ResourceType, labelSelector: string): void {
    const id = kindId(type);
    if (this.informers.has(id)) throw new Error(`the cache of ${type.plural} exists already`);
    this.selectors.set(id, labelSelector);
  }

  /** The informer of a kind, made on first use; started at once when the cache runs already. */
  informer<T extends KubeObject>(type: ResourceType): Informer<T> {
    const id = kindId(type);
    return this.informerOnce<T>(id, {
      type,
      namespace: type.namespaced ? this.options.namespace : undefined,
      labelSelector: this.selectors.get(id),
    });
  }

  /**
   * A metadata-only informer of a kind in one namespace (see InformerOptions.metadataOnly), apart
   * from the kind's cache: for watches that only need to know that an object of a name came or
   * changed, on kinds whose cache holds only some objects (Secrets). Started as `informer`.
   */
  metadataInformer<T extends KubeObject>(type: NamespacedType, namespace: string): Informer<T> {
    return this.informerOnce<T>(`metadata:${namespace}:${kindId(type)}`, {
      type,
      namespace,
      metadataOnly: true,
    });
  }

  /** The informer under `id`, made with the cache's client, clock and backoff on first use. */
  private informerOnce<T extends KubeObject>(
    id: string,
    what: Pick<InformerOptions, 'type' | 'namespace' | 'labelSelector' | 'metadataOnly'>,
  ): Informer<T> {
    let informer = this.informers.get(id);
    if (!informer) {
      const { options } = this;
      informer = new Informer<KubeObject>({
        ...what,
        client: options.client,
        logger: options.logger,
        metrics: options.metrics,
        clock: options.clock,
        backoff: options.watchBackoff,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
      });
      this.informers.set(id, informer);
      if (this.running && !this.stopping.signal.aborted) informer.start();
    }
    return informer as Informer<T>;
  }

  /** Starts every informer; resolves once all of them have listed their kind. */
  async start(): Promise<void> {
    this.running = true;
    for (const informer of this.informers.values()) informer.start();
    await Promise.all([...this.informers.values()].map((i) => i.synced));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  get names(): string[] {
    return [...this.informers.values()].map((i) => i.name);
  }

  async read<T extends KubeObject>(type: ResourceType): Promise<CacheView<Stored<T>>> {
    const informer = this.informer<Stored<T>>(type);
    await this.synced(informer, type);
    return viewOf(informer);
  }

  view<T extends KubeObject>(type: ResourceType): CacheView<Stored<T>> {
    return viewOf(this.informer<Stored<T>>(type));
  }

  indexBy<T extends KubeObject>(
    type: NamespacedType,
    values: (object: Stored<T>) => string[],
  ): CacheIndex<Stored<T>> {
    const index = new Map<string, Map<string, Stored<T>>>();
    const remove = (object: Stored<T>): void => {
      for (const value of values(object)) {
        index.get(value)?.delete(objectKey(object));
        if (index.get(value)?.size === 0) index.delete(value);
      }
    };
    const add = (object: Stored<T>): void => {
      for (const value of values(object)) {
        const entries = index.get(value) ?? new Map<string, Stored<T>>();
        index.set(value, entries.set(objectKey(object), object));
      }
    };
    this.informer<Stored<T>>(type).addHandlers({
      onAdd: add,
      onUpdate: (previous, current) => (remove(previous), add(current)),
      onDelete: remove,
    });
    return { get: (value) => [...(index.get(value)?.values() ?? [])] };
  }

  /** Waits for the informer's first list; fails when the cache stops or the list takes too long. */
  private async synced(informer: Informer<KubeObject>, type: ResourceType): Promise<void> {
    if (informer.hasSynced) return;
    const timeoutMs = this.options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    const { clock } = this.options;
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    try {
      await Promise.race([
        informer.synced,
        new Promise<never>((_, reject) => {
          timer = clock.setTimeout(
            () =>
              reject(new Error(`the cache of ${typeName(type)} did not sync in ${timeoutMs} ms`)),
            timeoutMs,
          );
          onStop = (): void => reject(new CacheStoppedError('the cache stopped'));
          if (this.stopping.signal.aborted) onStop();
          else this.stopping.signal.addEventListener('abort', onStop, { once: true });
        }),
      ]);
    } finally {
      if (timer) clock.clearTimeout(timer);
      if (onStop) this.stopping.signal.removeEventListener('abort', onStop);
    }
  }
}

const kindId = (type: ResourceType): string => `${type.apiVersion}/${type.plural}`;

function viewOf<S extends KubeObject>(informer: Informer<S>): CacheView<S> {
  return {
    get: (name, namespace) => informer.get(namespace ? `${namespace}/${name}` : name),
    list: (namespace, filter) =>
      namespace === undefined && !filter
        ? informer.list()
        : informer.list(
            (object) =>
              (namespace === undefined || object.metadata?.namespace === namespace) &&
              (!filter || filter(object)),
          ),
  };
}
