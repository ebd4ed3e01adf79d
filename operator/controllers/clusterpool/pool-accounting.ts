import type { ClusterInstance, ClusterLease, ClusterPool } from '../../api/resources.js';

/** How a pool's instances and the leases on it stand (spec §2.1 steps 7–10). */
export interface PoolAccounting {
  total: number;
  terminating: number;
  /** Ready, not deleting, unclaimed: what a lease can bind. */
  available: ClusterInstance[];
  leased: number;
  /** Deleting or still provisioning: capacity on its way in or out. */
  pending: number;
  /** Failed, not deleting, unclaimed: to be replaced. */
  failed: ClusterInstance[];
  pendingDemand: number;
  need: number;
  room: number;
}

export function isPendingLease(lease: ClusterLease): boolean {
  const phase = lease.status?.phase ?? '';
  return (
    !lease.metadata?.deletionTimestamp &&
    !lease.status?.instanceRef?.name &&
    (phase === '' || phase === 'Pending')
  );
}

/**
 * Instance names claimed by a lease: carrying a lease claim, or named by a lease's instanceRef
 * when that names this very instance (its UID; a binding recorded before instanceRef had one
 * counts by name). An instance created later under the name of one a lease lost is not claimed.
 */
export function claimedInstances(
  instances: readonly ClusterInstance[],
  leases: readonly ClusterLease[],
): Set<string> {
  const uids = new Map(instances.map((i) => [i.metadata!.name!, i.metadata!.uid]));
  const claimed = new Set<string>();
  for (const lease of leases) {
    const ref = lease.status?.instanceRef;
    if (ref?.name && (!ref.uid || uids.get(ref.name) === ref.uid)) claimed.add(ref.name);
  }
  for (const instance of instances)
    if (instance.status?.leaseRef?.uid) claimed.add(instance.metadata!.name!);
  return claimed;
}

export function accountPool(
  pool: ClusterPool,
  instances: readonly ClusterInstance[],
  leases: readonly ClusterLease[],
): PoolAccounting {
  const claimed = claimedInstances(instances, leases);
  // A lease whose claim on an instance is recorded but whose own status is not yet Bound is not
  // demand any more: counting it would provision a phantom instance in the middle of a bind.
  const claimants = new Set(instances.map((i) => i.status?.leaseRef?.uid).filter(Boolean));
  const demand = leases.filter(
    (l) =>
      l.spec.poolRef.name === pool.metadata!.name &&
      isPendingLease(l) &&
      !claimants.has(l.metadata!.uid),
  );
  const accounting: PoolAccounting = {
    total: 0,
    terminating: 0,
    available: [],
    leased: 0,
    pending: 0,
    failed: [],
    pendingDemand: demand.length,
    need: 0,
    room: 0,
  };
  for (const instance of instances) {
    accounting.total += 1;
    const name = instance.metadata!.name!;
    if (instance.metadata?.deletionTimestamp) {
      accounting.pending += 1;
      accounting.terminating += 1;
    } else if (instance.status?.phase === 'Ready') {
      if (claimed.has(name)) accounting.leased += 1;
      else accounting.available.push(instance);
    } else if (instance.status?.phase === 'Failed') {
      if (!claimed.has(name)) accounting.failed.push(instance);
    } else {
      accounting.pending += 1;
    }
  }
  const { minSize = 0, warmSpares = 0, maxSize } = pool.spec;
  const supply = accounting.available.length + accounting.pending;
  accounting.need = Math.max(
    minSize - accounting.total,
    warmSpares - supply,
    accounting.pendingDemand - supply,
  );
  accounting.room = maxSize - accounting.total;
  return accounting;
}

/**
 * `<pool>-<N>` with the smallest N that no listed object uses: the namespace's instances (deleting
 * ones still hold their number) and its leases, whose kubeconfig Secrets `<lease>-kubeconfig`
 * would be the instance's `<instance>-kubeconfig`.
 */
export function nextInstanceName(
  pool: string,
  taken: readonly { metadata?: { name?: string } }[],
): string {
  const used = new Set<number>();
  for (const object of taken) {
    const suffix = object.metadata?.name?.slice(pool.length + 1) ?? '';
    if (object.metadata?.name?.startsWith(`${pool}-`) && /^\d+$/.test(suffix))
      used.add(Number(suffix));
  }
  let n = 0;
  while (used.has(n)) n += 1;
  return `${pool}-${n}`;
}
