import type {
  DeleteOptions as ApiDeleteOptions,
  ListOptions,
  ObjectList,
} from '../../client/kube/api-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/kube/api-error.js';
import type { KubeObject, Stored, StoredCluster, StoredMeta } from './objects.js';
import type {
  ClusterScopedType,
  NamespacedType,
  ResourceType,
} from '../../client/kube/resource-type.js';
import { typeName } from '../../client/kube/resource-type.js';

/** The requests a KubeClient is made of: ApiClient's, or an in-memory fake's. */
export interface ObjectApi {
  get<T extends KubeObject>(type: ResourceType, name: string, namespace?: string): Promise<T>;
  list<T extends KubeObject>(type: ResourceType, options?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(type: ResourceType, object: T): Promise<T>;
  update<T extends KubeObject>(type: ResourceType, object: T): Promise<T>;
  updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<T>;
  delete(
    type: ResourceType,
    name: string,
    namespace?: string,
    options?: ApiDeleteOptions,
  ): Promise<void>;
}

export interface Selector {
  labelSelector?: string;
  fieldSelector?: string;
  /** Only each object's metadata (no ConfigMap or Secret data is read). */
  metadataOnly?: boolean;
}

/** Which object a delete means: it names the UID, so that a newer object of the name is safe. */
export interface DeleteTarget {
  metadata: Pick<StoredMeta, 'name' | 'uid' | 'resourceVersion'> & { namespace?: string };
}

export interface DeleteOptions {
  /**
   * Also require the resourceVersion the object was seen with: a delete decided from that version
   * then fails with a conflict once the object changed (read it again and decide again).
   */
  unchanged?: boolean;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}

export type EnsureOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Kubernetes access for controllers. Objects come back as stored (name, namespace, UID and
 * resourceVersion present); every delete names the UID it means.
 */
export interface KubeClient {
  get<T extends KubeObject>(type: ClusterScopedType, name: string): Promise<StoredCluster<T>>;
  get<T extends KubeObject>(type: NamespacedType, name: string, ns: string): Promise<Stored<T>>;
  /** The object read live; undefined when it does not exist. */
  getOrUndefined<T extends KubeObject>(
    type: ClusterScopedType,
    name: string,
  ): Promise<StoredCluster<T> | undefined>;
  getOrUndefined<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    ns: string,
  ): Promise<Stored<T> | undefined>;
  /** Every object (of a namespace, when given) that the selectors match, all pages read. */
  list<T extends KubeObject>(type: ClusterScopedType, opts?: Selector): Promise<StoredCluster<T>[]>;
  list<T extends KubeObject>(
    type: NamespacedType,
    opts?: Selector & { namespace?: string },
  ): Promise<Stored<T>[]>;
  create<T extends KubeObject>(type: ClusterScopedType, object: T): Promise<StoredCluster<T>>;
  create<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  /**
   * POSTs a request that the apiserver answers without storing anything (a review, a
   * TokenRequest): the answer is returned as it came, not checked as a stored object.
   */
  submit<T extends KubeObject>(type: ResourceType, request: T): Promise<T>;
  /** Creates the object; undefined when one of its name exists already (left as it is). */
  createIfAbsent<T extends KubeObject>(
    type: ClusterScopedType,
    object: T,
  ): Promise<StoredCluster<T> | undefined>;
  createIfAbsent<T extends KubeObject>(
    type: NamespacedType,
    object: T,
  ): Promise<Stored<T> | undefined>;
  /** PUT of the whole object; a conflict (409) when its resourceVersion is not the stored one. */
  update<T extends KubeObject>(type: ClusterScopedType, object: T): Promise<StoredCluster<T>>;
  update<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  /** PUT of the status subresource, with the same optimistic concurrency. */
  updateStatus<T extends KubeObject>(type: ClusterScopedType, object: T): Promise<StoredCluster<T>>;
  updateStatus<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  /**
   * Creates `desired`, or brings the existing object in line: `reconcile` gets the stored object
   * (read live) and returns the version to write, or undefined to leave it; it throws to refuse
   * it (another owner's). A create that meets one made meanwhile reconciles that one.
   */
  ensure<T extends KubeObject>(
    type: ClusterScopedType,
    desired: T,
    reconcile?: (existing: StoredCluster<T>) => T | undefined,
  ): Promise<{ object: StoredCluster<T>; outcome: EnsureOutcome }>;
  ensure<T extends KubeObject>(
    type: NamespacedType,
    desired: T,
    reconcile?: (existing: Stored<T>) => T | undefined,
  ): Promise<{ object: Stored<T>; outcome: EnsureOutcome }>;
  /** Deletes exactly this object (its UID; its resourceVersion too with `unchanged`). */
  delete(type: ResourceType, object: DeleteTarget, options?: DeleteOptions): Promise<void>;
  /**
   * As delete; false when the object was gone already: not found, or (without `unchanged`) its
   * name now belongs to another object. With `unchanged`, a changed object is a conflict (409).
   */
  deleteIfExists(
    type: ResourceType,
    object: DeleteTarget,
    options?: DeleteOptions,
  ): Promise<boolean>;
}

const PAGE_SIZE = 500;

/** The KubeClient on any ObjectApi: the apiserver's ApiClient, or a test's in-memory fake. */
export class ObjectClient implements KubeClient {
  constructor(private readonly api: ObjectApi) {}

  async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T>> {
    return stored(type, await this.api.get<T>(type, name, namespace));
  }

  async getOrUndefined<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T> | undefined> {
    try {
      return await this.get<T>(type, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list<T extends KubeObject>(
    type: ResourceType,
    options: Selector & { namespace?: string } = {},
  ): Promise<Stored<T>[]> {
    const items: Stored<T>[] = [];
    let next: string | undefined;
    do {
      const page = await this.api.list<T>(type, { ...options, limit: PAGE_SIZE, continue: next });
      for (const item of page.items) items.push(stored(type, item));
      next = page.continue;
    } while (next);
    return items;
  }

  async create<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return stored(type, await this.api.create(type, object));
  }

  async submit<T extends KubeObject>(type: ResourceType, request: T): Promise<T> {
    return this.api.create(type, request);
  }

  async createIfAbsent<T extends KubeObject>(
    type: ResourceType,
    object: T,
  ): Promise<Stored<T> | undefined> {
    try {
      return await this.create(type, object);
    } catch (error) {
      if (isAlreadyExists(error)) return undefined;
      throw error;
    }
  }

  async update<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return stored(type, await this.api.update(type, object));
  }

  async updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return stored(type, await this.api.updateStatus(type, object));
  }

  async ensure<T extends KubeObject>(
    type: ResourceType,
    desired: T,
    reconcile?: (existing: Stored<T>) => T | undefined,
  ): Promise<{ object: Stored<T>; outcome: EnsureOutcome }> {
    const { name = '', namespace } = desired.metadata ?? {};
    let existing = await this.getOrUndefined<T>(type, name, namespace);
    if (!existing) {
      const created = await this.createIfAbsent(type, desired);
      if (created) return { object: created, outcome: 'created' };
      existing = await this.get<T>(type, name, namespace);
    }
    const next = reconcile?.(existing);
    if (!next) return { object: existing, outcome: 'unchanged' };
    return { object: await this.update(type, next), outcome: 'updated' };
  }

  async delete(
    type: ResourceType,
    object: DeleteTarget,
    options: DeleteOptions = {},
  ): Promise<void> {
    const { name, namespace, uid, resourceVersion } = object.metadata;
    await this.api.delete(type, name, namespace, {
      uid,
      ...(options.unchanged ? { resourceVersion } : {}),
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    });
  }

  async deleteIfExists(
    type: ResourceType,
    object: DeleteTarget,
    options: DeleteOptions = {},
  ): Promise<boolean> {
    try {
      await this.delete(type, object, options);
      return true;
    } catch (error) {
      // Without the resourceVersion, the only precondition that can fail is the UID's.
      if (isNotFound(error) || (!options.unchanged && isConflict(error))) return false;
      throw error;
    }
  }
}

/**
 * The object as the apiserver stored it. It always sets these fields; a response without them is
 * not an object (a fake's or a proxy's mistake), and is refused here rather than deep in a caller.
 */
function stored<T extends KubeObject>(type: ResourceType, object: T): Stored<T> {
  const meta = object.metadata;
  if (!meta?.name || !meta.uid || !meta.resourceVersion || (type.namespaced && !meta.namespace))
    throw new Error(
      `${typeName(type)} ${meta?.name ?? ''} came back without its name, namespace, uid or resourceVersion`,
    );
  return object as Stored<T>;
}
