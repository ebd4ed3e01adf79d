import type { ClusterInstance } from '../../../api/resources.js';
import { isAlreadyExists, isNotFound } from '../../../kube/api-error.js';
import type { DeleteOptions } from '../../../kube/api-client.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../kube/resource-type.js';
import type { Manager } from '../../../runtime/manager.js';
import { controlledBy, verifyCrcOwnership } from './crc-ownership.js';

/**
 * Reads and writes of a crc instance's objects in its namespace, with the crc ownership rule
 * (spec §2.3.6) applied to everything found: an object of another owner is never adopted,
 * changed or deleted.
 */
export class CrcObjects {
  readonly namespace: string;

  constructor(
    private readonly manager: Manager,
    readonly instance: ClusterInstance,
  ) {
    this.namespace = instance.metadata!.namespace!;
  }

  cached<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): T | undefined {
    const key = type.namespaced ? `${namespace}/${name}` : name;
    return this.manager.informer<T>(type).get(key);
  }

  async live<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Promise<T | undefined> {
    try {
      const object = await this.manager.client.get<T>(
        type,
        name,
        type.namespaced ? namespace : undefined,
      );
      return { apiVersion: type.apiVersion, kind: type.kind, ...object };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** From the cache, else live (a lagging cache must not make us create something twice). */
  async current<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Promise<T | undefined> {
    return this.cached<T>(type, name, namespace) ?? (await this.live<T>(type, name, namespace));
  }

  /** Throws an OwnershipConflictError unless the object belongs to the instance. */
  async verify(type: ResourceType, object: KubeObject): Promise<void> {
    await verifyCrcOwnership({ kind: type.kind, ...object }, this.instance, (parent, name) =>
      this.live(parent, name),
    );
  }

  /**
   * Ensure object (spec §2.3.6): create when missing, else verify and adopt; the spec of an
   * existing object is never patched. Returns the object and whether it was created.
   */
  async ensure<T extends KubeObject>(
    type: ResourceType,
    desired: T,
  ): Promise<{ object: T; created: boolean }> {
    const name = desired.metadata!.name!;
    let existing = await this.current<T>(type, name);
    if (!existing) {
      try {
        return { object: await this.manager.client.create<T>(type, desired), created: true };
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        existing = (await this.live<T>(type, name))!;
      }
    }
    await this.verify(type, existing);
    if (!controlledBy(existing, this.instance)) {
      existing = await this.manager.client.update<T>(type, {
        ...existing,
        metadata: { ...existing.metadata, ownerReferences: desired.metadata!.ownerReferences },
      });
    }
    return { object: existing, created: false };
  }

  /**
   * The crc delete helper: live read, verify, delete this very object (UID precondition). True
   * while it is still there (a finalizer, or foreground deletion of its dependents).
   */
  async remove(
    type: ResourceType,
    name: string,
    options: Omit<DeleteOptions, 'uid'> & {
      /** Leave the object alone unless the instance controls it (no conflict). */
      onlyControlled?: boolean;
      /** The caller has checked the object already. */
      skipVerify?: boolean;
    } = {},
  ): Promise<boolean> {
    const { onlyControlled, skipVerify, ...deleteOptions } = options;
    const object = await this.live(type, name);
    if (!object) return false;
    if (onlyControlled && !controlledBy(object, this.instance)) return false;
    if (!onlyControlled && !skipVerify) await this.verify(type, object);
    if (!object.metadata?.deletionTimestamp) {
      try {
        await this.manager.client.delete(type, name, this.namespace, {
          ...deleteOptions,
          uid: object.metadata?.uid,
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    return (await this.live(type, name)) !== undefined;
  }
}
