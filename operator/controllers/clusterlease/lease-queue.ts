import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { claimedInstances, isPendingLease } from '../clusterpool/pool-accounting.js';

type Created = { metadata?: { creationTimestamp?: string; name?: string } };

/**
 * Creation time, then name. RFC 3339 timestamps in UTC and object names compare correctly as
 * plain strings; this runs in every pass over a pool, so it builds no strings.
 */
function byCreation(a: Created, b: Created): number {
  const [ta, tb] = [a.metadata?.creationTimestamp ?? '', b.metadata?.creationTimestamp ?? ''];
  if (ta !== tb) return ta < tb ? -1 : 1;
  const [na, nb] = [a.metadata?.name ?? '', b.metadata?.name ?? ''];
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/**
 * Pending leases of one pool, first come first served (creation time, then name). A lease that
 * already holds a claim on an instance is binding, not waiting: it leaves the queue together with
 * its instance leaving the available ones, so every other lease keeps its place and its instance.
 */
export function pendingQueue(
  pool: string,
  leases: readonly ClusterLease[],
  instances: readonly ClusterInstance[] = [],
): ClusterLease[] {
  const claimants = new Set(instances.map((i) => i.status?.leaseRef?.uid).filter(Boolean));
  return leases
    .filter(
      (l) => l.spec.poolRef.name === pool && isPendingLease(l) && !claimants.has(l.metadata!.uid),
    )
    .sort(byCreation);
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
 * Where a pending lease stands: the n-th lease in the queue takes the n-th available instance
 * (so concurrent binds of many leases rarely race for the same one), or waits with its 1-based
 * position among the leases that no available instance covers.
 */
export function placeLease(
  lease: ClusterLease,
  queue: readonly ClusterLease[],
  available: readonly ClusterInstance[],
): Placement {
  const index = queue.findIndex((l) => l.metadata!.uid === lease.metadata!.uid);
  const position = index < 0 ? queue.length : index;
  const instance = available[position];
  return instance ? { instance } : { queuePosition: position - available.length + 1 };
}
