import type { KubeObject, Stored, StoredCluster } from '../kube/objects.js';
import type { ClusterScopedType, NamespacedType } from '../../client/kube/resource-type.js';

/** What a cache holds of one kind, read synchronously. */
export interface CacheView<S> {
  get(name: string, namespace?: string): S | undefined;
  /** The cached objects (of one namespace, when given) that pass `filter`. */
  list(namespace?: string, filter?: (object: S) => boolean): S[];
}

/** Cached objects of a kind by a value computed from each (controller-runtime's field indexes). */
export interface CacheIndex<S> {
  get(value: string): S[];
}

/**
 * The shared caches controllers read. A decision taken from a cache carries a precondition (the
 * resourceVersion or UID it saw) or is checked by a live read first: a cache may lag.
 */
export interface CacheReader {
  /**
   * The cache of a kind, once it holds the kind's objects: a kind nothing watched yet gets its
   * cache on first use, started at once when the manager runs.
   */
  read<T extends KubeObject>(type: ClusterScopedType): Promise<CacheView<StoredCluster<T>>>;
  read<T extends KubeObject>(type: NamespacedType): Promise<CacheView<Stored<T>>>;
  /**
   * The cache of a kind without waiting for it: for event handlers of the kinds a controller
   * watches, whose caches hold their objects before the first event arrives.
   */
  view<T extends KubeObject>(type: ClusterScopedType): CacheView<StoredCluster<T>>;
  view<T extends KubeObject>(type: NamespacedType): CacheView<Stored<T>>;
  /** An index over the cache of a namespaced kind, kept up to date with it. */
  indexBy<T extends KubeObject>(
    type: NamespacedType,
    values: (object: Stored<T>) => string[],
  ): CacheIndex<Stored<T>>;
}
