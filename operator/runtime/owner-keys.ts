import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';

const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';

/**
 * The keys of the objects of kind `owner` that own `object`, from its owner references (any
 * version of the owner's group). A namespaced owner lives in the object's namespace.
 */
export function ownerKeys(object: KubeObject, owner: ResourceType): string[] {
  const namespace = object.metadata?.namespace;
  return (object.metadata?.ownerReferences ?? [])
    .filter(
      (ref) => ref.kind === owner.kind && groupOf(ref.apiVersion) === groupOf(owner.apiVersion),
    )
    .map((ref) => (owner.namespaced && namespace ? `${namespace}/${ref.name}` : ref.name));
}

/** Maps objects to the key named by one of their labels (in the object's namespace). */
export function labelKey(label: string, namespaced = true): (object: KubeObject) => string[] {
  return (object) => {
    const value = object.metadata?.labels?.[label];
    if (!value) return [];
    const namespace = object.metadata?.namespace;
    return [namespaced && namespace ? `${namespace}/${value}` : value];
  };
}
