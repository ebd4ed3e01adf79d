import type { DeleteOptions } from '../../../kube/kube-client.js';
import { isAlreadyExists } from '../../../../client/kube/api-error.js';
import type { Desired, KubeObject, Stored, StoredCluster } from '../../../kube/objects.js';
import type { NamespacedType, ResourceType } from '../../../../client/kube/resource-type.js';
import type { ObjectSource } from '../../../reconcile/object-source.js';
import { current } from '../../../reconcile/object-source.js';
import type { Instance, InstanceApi } from './instance-api.js';
import type { OwnershipRule } from './ownership.js';
import { verifyOwnership } from './ownership.js';
import { isControlledBy } from '../../../kube/ownership.js';

/** The reads and writes of objects that InstanceObjects needs. */
export type ObjectAccess = Pick<InstanceApi, 'cached' | 'get' | 'create' | 'update' | 'delete'>;

export interface RemoveOptions {
  /** Default: the instance's namespace. */
  namespace?: string;
  propagationPolicy?: DeleteOptions['propagationPolicy'];
  /**
   * Which object of the name is removed: `verified` (the default; another owner's is a
   * conflict), `controlled` or `owned` (one the instance does not control, or the rule does not
   * call owned without reading parents, is left alone), `checked` (the caller verified it).
   */
  only?: 'verified' | 'controlled' | 'owned' | 'checked';
}

/**
 * The objects of one instance (docs/reference/instances.md#crc-ownership,
 * docs/reference/instances.md#hcp-placement-and-ownership): cached, live and cache-then-live reads,
 * and ensure and remove, with the topology's ownership rule applied to everything found.
 */
export class InstanceObjects implements ObjectSource {
  readonly namespace: string;

  constructor(
    private readonly access: ObjectAccess,
    readonly instance: Instance,
    readonly rule: OwnershipRule,
  ) {
    this.namespace = instance.metadata.namespace;
  }

  cached<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace?: string,
  ): Stored<T> | undefined;
  cached<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): StoredCluster<T> | undefined;
  cached<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Stored<T> | undefined {
    const key = type.namespaced ? `${namespace}/${name}` : name;
    return this.access.cached<T>(type as NamespacedType, key);
  }

  live<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T> | undefined>;
  live<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<StoredCluster<T> | undefined>;
  live<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Promise<Stored<T> | undefined> {
    return this.access.get<T>(type as NamespacedType, name, namespace);
  }

  /** From the cache, else live (a lagging cache must not make us create something twice). */
  current<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T> | undefined>;
  current<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<StoredCluster<T> | undefined>;
  current<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Promise<Stored<T> | undefined> {
    return current<T>(this, type as NamespacedType, name, namespace);
  }

  /** Throws an OwnershipConflictError unless the object belongs to the instance. */
  verify(type: ResourceType, object: KubeObject): Promise<void> {
    const namespace = object.metadata?.namespace ?? this.namespace;
    return verifyOwnership(this.rule, object, type.kind, (parent, name) =>
      this.live(parent, name, namespace),
    );
  }

  /** Whether the instance is the object's controller. */
  controls(object: KubeObject | undefined): boolean {
    return isControlledBy(object, this.instance);
  }

  /**
   * Ensure object (docs/reference/instances.md#crc-ownership): create when missing, else verify
   * and, where the rule adopts, adopt; the spec of an existing object is never patched. Returns it
   * and whether it was created.
   */
  async ensure<T extends KubeObject>(
    type: NamespacedType,
    desired: Desired<T>,
  ): Promise<{ object: Stored<T>; created: boolean }> {
    const { name, namespace } = desired.metadata;
    let existing = await this.current<T>(type, name, namespace);
    if (!existing) {
      const created = await this.createOrFind(type, desired);
      if ('created' in created) return { object: created.created, created: true };
      existing = created.found;
    }
    await this.verify(type, existing);
    if (this.rule.adopts && !this.controls(existing)) {
      existing = await this.access.update<T>(type, {
        ...existing,
        metadata: { ...existing.metadata, ownerReferences: desired.metadata.ownerReferences },
      });
    }
    return { object: existing, created: false };
  }

  /**
   * Deletes the instance's object of this name (live read, then a delete of that very object by
   * its UID). True while it is still there (a finalizer, or foreground deletion of dependents).
   */
  async remove(type: ResourceType, name: string, options: RemoveOptions = {}): Promise<boolean> {
    const { namespace = this.namespace, only = 'verified', propagationPolicy } = options;
    const object = await this.live(type, name, namespace);
    if (!object || !(await this.mayRemove(type, object, only))) return false;
    if (!object.metadata?.deletionTimestamp)
      await this.access.delete(type, object, propagationPolicy ? { propagationPolicy } : {});
    return (await this.live(type, name, namespace)) !== undefined;
  }

  private async mayRemove(
    type: ResourceType,
    object: KubeObject,
    only: NonNullable<RemoveOptions['only']>,
  ): Promise<boolean> {
    switch (only) {
      case 'controlled':
        return this.controls(object);
      case 'owned':
        return 'owned' in this.rule.verdict(object, object.kind ?? type.kind);
      case 'verified':
        await this.verify(type, object);
        return true;
      case 'checked':
        return true;
    }
  }

  private async createOrFind<T extends KubeObject>(
    type: NamespacedType,
    desired: Desired<T>,
  ): Promise<{ created: Stored<T> } | { found: Stored<T> }> {
    try {
      return { created: await this.access.create<T>(type, desired) };
    } catch (error) {
      // Someone made it between the read and the create: it is judged like any found object.
      if (!isAlreadyExists(error)) throw error;
      const { name, namespace } = desired.metadata;
      const found = await this.live<T>(type, name, namespace);
      if (!found) throw error;
      return { found };
    }
  }
}
