import type { KubeObject, OwnerReference, StoredMeta } from './objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';

/** An owner as stored: its name and UID are known. */
interface Owner {
  metadata: Pick<StoredMeta, 'name' | 'uid'>;
}

/**
 * The controller reference to `owner` (of kind `type`): the garbage collector deletes the object
 * with its owner, and blockOwnerDeletion keeps a foreground delete of the owner waiting for it.
 */
export function controllerReference(type: ResourceType, owner: Owner): OwnerReference {
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * An owner reference to `owner` that is not its controller: the garbage collector deletes the
 * object once all of its owners are gone.
 */
export function ownerReference(type: ResourceType, owner: Owner): OwnerReference {
  return { ...controllerReference(type, owner), controller: false };
}

/** Whether `object` is controlled by this very owner (not by a deleted one of the same name). */
export function isControlledBy(object: KubeObject | undefined, owner: KubeObject): boolean {
  const uid = owner.metadata?.uid;
  return !!uid && !!object?.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid);
}

/** The object with `finalizer` added (itself when it has it): the write is the caller's. */
export function withFinalizer<T extends KubeObject>(object: T, finalizer: string): T {
  const finalizers = object.metadata?.finalizers ?? [];
  if (finalizers.includes(finalizer)) return object;
  return { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, finalizer] } };
}

/** The object without `finalizer` (itself when it has none). */
export function withoutFinalizer<T extends KubeObject>(object: T, finalizer: string): T {
  const finalizers = object.metadata?.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return object;
  const rest = finalizers.filter((f) => f !== finalizer);
  return { ...object, metadata: { ...object.metadata, finalizers: rest } };
}
