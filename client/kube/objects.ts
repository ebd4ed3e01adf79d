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

/** What the apiserver always sets on an object it stored. */
export interface StoredMeta extends ObjectMeta {
  name: string;
  uid: string;
  resourceVersion: string;
}

/** An object of a namespaced kind as the apiserver stored it (read, or returned by a write). */
export type Stored<T extends KubeObject> = T & { metadata: StoredMeta & { namespace: string } };

/** An object of a cluster-scoped kind as the apiserver stored it. */
export type StoredCluster<T extends KubeObject> = T & { metadata: StoredMeta };

/** The metadata of an object we build to create: we give it its name and namespace. */
export interface DesiredMeta extends ObjectMeta {
  name: string;
  namespace: string;
}

/** A namespaced object as we build it, before it is created (or compared with the stored one). */
export type Desired<T extends KubeObject> = T & { metadata: DesiredMeta };
