import type { ClusterInstance, ClusterLease } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import { kubeconfigSecretName } from '../../../contracts/names.js';
import type { QueuePlacement } from './version-match.js';
import { placeByVersion } from './version-match.js';

/**
 * What binding leases to instances means, in one place for the lease and the pool controllers
 * (ADR 0006, ADR 0021):
 * - a **claim** is an instance's `status.leaseRef` with the claiming lease's UID, won by a
 *   compare-and-swap write; a leaseRef without a UID is an older version's projection, not a claim;
 * - a **binding** is a lease's `status.instanceRef`, naming the instance (and its UID);
 * - a lease is **pending** until it is bound, fails or goes; a pending lease that holds a claim is
 *   binding, not waiting: it has left its pool's queue;
 * - an instance is **claimed** when it carries a claim or a lease is bound to that very object,
 *   and **available** when it is Ready, not being deleted and not claimed;
 * - a pool's **demand** is its waiting leases.
 */
export type Instance = Stored<ClusterInstance>;
export type Lease = Stored<ClusterLease>;

/** The claim an instance carries: the lease's name and UID. */
export function claimOf(instance: ClusterInstance): { name: string; uid: string } | undefined {
  const ref = instance.status?.leaseRef;
  return ref?.uid ? { name: ref.name ?? '', uid: ref.uid } : undefined;
}

export function isClaimedBy(instance: ClusterInstance, lease: Lease): boolean {
  return claimOf(instance)?.uid === lease.metadata.uid;
}

/** Phases of earlier versions, no longer in the schema; stored leases may still carry them. */
export const LEGACY_PHASES = ['Releasing', 'Released'] as const;

export function legacyPhase(lease: ClusterLease): (typeof LEGACY_PHASES)[number] | undefined {
  const phase = String(lease.status?.phase ?? '');
  return LEGACY_PHASES.find((legacy) => legacy === phase);
}

export function isPendingLease(lease: ClusterLease): boolean {
  const phase = lease.status?.phase ?? '';
  return (
    !lease.metadata?.deletionTimestamp &&
    !lease.status?.instanceRef?.name &&
    (phase === '' || phase === 'Pending')
  );
}

/** Ready and not being deleted: an instance a lease may use, claims aside. */
export function isUsable(instance: ClusterInstance): boolean {
  return !instance.metadata?.deletionTimestamp && instance.status?.phase === 'Ready';
}

/** Usable and unclaimed as far as the instance itself tells (a lease's binding aside). */
export function looksAvailable(instance: ClusterInstance | undefined): boolean {
  return !!instance && isUsable(instance) && !claimOf(instance);
}

/** UIDs of the leases that hold a claim on one of these instances. */
export function claimants(instances: Iterable<ClusterInstance>): Set<string> {
  const uids = new Set<string>();
  for (const instance of instances) {
    const claim = claimOf(instance);
    if (claim) uids.add(claim.uid);
  }
  return uids;
}

/**
 * Names of the claimed instances: carrying a claim, or named by a lease's binding when that
 * names this very object (its UID; a binding recorded before bindings had one counts by name).
 * An instance created later under the name of one a lease lost is not claimed.
 */
export function claimedInstances(
  instances: readonly Instance[],
  leases: readonly ClusterLease[],
): Set<string> {
  const uids = new Map(instances.map((i) => [i.metadata.name, i.metadata.uid]));
  const claimed = new Set<string>();
  for (const lease of leases) {
    const ref = lease.status?.instanceRef;
    if (ref?.name && (!ref.uid || uids.get(ref.name) === ref.uid)) claimed.add(ref.name);
  }
  for (const instance of instances) if (claimOf(instance)) claimed.add(instance.metadata.name);
  return claimed;
}

/** Whether the one instance is claimed, by a claim or by one of `leases`' bindings. */
export function isClaimed(instance: Instance, leases: readonly ClusterLease[]): boolean {
  return claimedInstances([instance], leases).size > 0;
}

type Created = { metadata: { creationTimestamp?: string; name: string } };

/**
 * Creation time, then name. RFC 3339 timestamps in UTC and object names compare correctly as
 * plain strings. This runs in every pass over a pool, so it builds nothing.
 */
export function byCreation(a: Created, b: Created): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata.name;
  const nb = b.metadata.name;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Usable, unclaimed instances, in a stable order: what the pool's queue is served from. */
export function availableInstances(
  instances: readonly Instance[],
  leases: readonly ClusterLease[],
): Instance[] {
  const claimed = claimedInstances(instances, leases);
  return instances.filter((i) => isUsable(i) && !claimed.has(i.metadata.name)).sort(byCreation);
}

/** Whether a lease waits in the queue of `pool`: pending there, and not binding (no claim). */
export function isWaiting(lease: Lease, pool: string, claiming: Set<string>): boolean {
  return (
    lease.spec.poolRef.name === pool && isPendingLease(lease) && !claiming.has(lease.metadata.uid)
  );
}

/** The leases waiting in the queue of `pool`, first come first served. */
export function pendingQueue(
  pool: string,
  leases: Iterable<Lease>,
  instances: Iterable<ClusterInstance> = [],
): Lease[] {
  const claiming = claimants(instances);
  const queue: Lease[] = [];
  for (const lease of leases) if (isWaiting(lease, pool, claiming)) queue.push(lease);
  return queue.sort(byCreation);
}

/**
 * A pool's demand: its waiting leases. A lease whose claim is recorded but whose own status is
 * not yet Bound is no demand any more: counting it would provision a phantom instance mid-bind.
 */
export function poolDemand(
  pool: string,
  leases: readonly Lease[],
  instances: readonly ClusterInstance[],
): number {
  const claiming = claimants(instances);
  let demand = 0;
  for (const lease of leases) if (isWaiting(lease, pool, claiming)) demand += 1;
  return demand;
}

export type Placement = QueuePlacement;

/**
 * Where a pending lease stands: the n-th lease in its pool's queue takes the n-th available
 * instance (so concurrent binds of many leases rarely race for the same one), or waits with its
 * 1-based position among the leases that no available instance covers. It counts the leases
 * ahead instead of sorting the queue: with thousands waiting, every pass stays cheap. When a
 * lease of the queue asks for a version, the versions decide who takes what (placeByVersion).
 */
export function placeLease(
  lease: Lease,
  leases: readonly Lease[],
  instances: readonly Instance[],
): Placement {
  const pool = lease.spec.poolRef.name;
  const claiming = claimants(instances);
  const queued = isWaiting(lease, pool, claiming);
  const { uid } = lease.metadata;
  const others = (other: Lease): boolean =>
    other.metadata.uid !== uid && isWaiting(other, pool, claiming);
  let position = 0;
  let versioned = !!lease.spec.ocpVersion;
  for (const other of leases) {
    if (!others(other)) continue;
    if (!queued || byCreation(other, lease) < 0) position++;
    if (other.spec.ocpVersion) versioned = true;
  }
  const available = availableInstances(instances, leases);
  if (versioned) {
    // The whole queue, the lease in its place (after all of it when it is not in the queue).
    const queue = leases.filter(others).sort(byCreation);
    queue.splice(position, 0, lease);
    return placeByVersion(lease, queue, available);
  }
  const instance = available[position];
  return instance ? { instance } : { queuePosition: position - available.length + 1 };
}

/**
 * The Secret a lease's kubeconfig is copied to, `<lease>-kubeconfig`; its Role and RoleBinding
 * share the name. An instance publishes its own kubeconfig as `<instance>-kubeconfig` in the same
 * namespace, so an instance must never be named like a lease (nextInstanceName) and a lease
 * refuses a name an instance's Secret holds (the lease controller's foreignOwner).
 */
export function leaseKubeconfigName(lease: string): string {
  return kubeconfigSecretName(lease);
}

/**
 * `<pool>-<N>` with the smallest N that no listed object uses: the namespace's instances (deleting
 * ones still hold their number) and its leases, whose kubeconfig Secrets would collide with the
 * instance's (leaseKubeconfigName).
 */
export function nextInstanceName(
  pool: string,
  taken: readonly { metadata: { name: string } }[],
): string {
  const used = new Set<number>();
  const prefix = `${pool}-`;
  for (const object of taken) {
    const { name } = object.metadata;
    const suffix = name.slice(prefix.length);
    if (name.startsWith(prefix) && /^\d+$/.test(suffix)) used.add(Number(suffix));
  }
  let n = 0;
  while (used.has(n)) n += 1;
  return `${pool}-${n}`;
}
