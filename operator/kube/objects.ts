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

/** The cache and queue key of an object: "namespace/name", or "name" when cluster-scoped. */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** JSON with object keys sorted (undefined fields left out, as on the wire). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Whether two values (a status as read and as computed) say the same, key order aside: the
 * apiserver returns keys sorted, and a write that changes nothing is a no-op no watch reports,
 * so comparing key order would send a needless write on every pass.
 */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Whether `actual` (an object as stored) says everything `wanted` says: every field of `wanted`
 * is there with the same value, lists element by element; fields the apiserver filled in with
 * its defaults are left out of the comparison.
 */
export function holdsContent(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted))
    return (
      Array.isArray(actual) &&
      actual.length === wanted.length &&
      wanted.every((item, i) => holdsContent(actual[i], item))
    );
  if (wanted && typeof wanted === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const fields = actual as Record<string, unknown>;
    return Object.entries(wanted).every(
      ([key, value]) => value === undefined || holdsContent(fields[key], value),
    );
  }
  return actual === wanted;
}
