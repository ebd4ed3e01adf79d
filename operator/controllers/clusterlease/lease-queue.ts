import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { claimedInstances, isPendingLease } from '../clusterpool/pool-accounting.js';

type Created = { metadata?: { creationTimestamp?: string; name?: string } };

/**
 * Creation time, then name. RFC 3339 timestamps in UTC and object names compare correctly as
 * plain strings. This runs in every pass over a pool, so it builds nothing.
 */
function byCreation(a: Created, b: Created): number {
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** UIDs of leases that hold a claim on one of these instances. */
function claimantsOf(instances: Iterable<ClusterInstance>): Set<string> {
  const claimants = new Set<string>();
  for (const instance of instances) {
    const uid = instance.status?.leaseRef?.uid;
    if (uid) claimants.add(uid);
  }
  return claimants;
}

/**
 * Whether a lease waits in its pool's queue. A lease that already holds a claim on an instance is
 * binding, not waiting: it leaves the queue together with its instance leaving the available
 * ones, so every other lease keeps its place and its instance.
 */
function waits(lease: ClusterLease, pool: string, claimants: Set<string>): boolean {
  return (
    lease.spec.poolRef.name === pool &&
    isPendingLease(lease) &&
    !claimants.has(lease.metadata!.uid!)
  );
}

/** Pending leases of one pool, first come first served (creation time, then name). */
export function pendingQueue(
  pool: string,
  leases: Iterable<ClusterLease>,
  instances: Iterable<ClusterInstance> = [],
): ClusterLease[] {
  const claimants = claimantsOf(instances);
  const queue: ClusterLease[] = [];
  for (const lease of leases) if (waits(lease, pool, claimants)) queue.push(lease);
  return queue.sort(byCreation);
}

/** Ready, not deleting, unclaimed instances, in a stable order. */
export function availableInstances(
  instances: readonly ClusterInstance[],
  leases: readonly ClusterLease[],
): ClusterInstance[] {
  const claimed = claimedInstances(instances, leases);
  return instances
    .filter(
      (i) =>
        !i.metadata?.deletionTimestamp &&
        i.status?.phase === 'Ready' &&
        !claimed.has(i.metadata!.name!),
    )
    .sort(byCreation);
}

export type Placement = { instance: ClusterInstance } | { queuePosition: number };

/**
 * Where a pending lease stands: the n-th lease in its pool's queue takes the n-th available
 * instance (so concurrent binds of many leases rarely race for the same one), or waits with its
 * 1-based position among the leases that no available instance covers. It counts the leases
 * ahead instead of sorting the queue: with thousands waiting, every pass stays cheap.
 */
export function placeLease(
  lease: ClusterLease,
  leases: readonly ClusterLease[],
  instances: readonly ClusterInstance[],
): Placement {
  const pool = lease.spec.poolRef.name;
  const claimants = claimantsOf(instances);
  const queued = waits(lease, pool, claimants);
  let position = 0;
  for (const other of leases)
    if (waits(other, pool, claimants) && (!queued || byCreation(other, lease) < 0)) position++;
  const available = availableInstances(instances, leases);
  const instance = available[position];
  return instance ? { instance } : { queuePosition: position - available.length + 1 };
}
