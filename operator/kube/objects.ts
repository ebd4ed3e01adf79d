/**
 * Kubernetes objects as they travel on the wire: plain JSON, timestamps as RFC 3339 strings.
 * (client-node's model classes turn timestamps into Date objects; our API client never does.)
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** The cache and queue key of an object: "namespace/name", or "name" when cluster-scoped. */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
