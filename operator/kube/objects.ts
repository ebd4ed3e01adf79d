import type { KubeObject } from '../../client/kube/objects.js';

// The wire types are shared with the Action, the CLI and crc-agent (client/kube/objects.ts).
export type {
  Desired,
  DesiredMeta,
  KubeObject,
  ObjectMeta,
  OwnerReference,
  Stored,
  StoredCluster,
  StoredMeta,
} from '../../client/kube/objects.js';

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
