import type { ClusterPool } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimedInstances, poolDemand } from '../binding/binding-model.js';
import { blockedByLimits, poolLimits } from '../binding/lease-limits.js';
import { offerServes, poolOffer } from '../binding/pool-offer.js';
import { resumeUnderWay } from '../clusterinstance/core/hibernation.js';

/**
 * How a pool's instances and the leases on it stand (docs/reference/kinds.md#pool-reconcile steps
 * 7–10).
 */
export interface PoolAccounting {
  total: number;
  terminating: number;
  /** Ready, not deleting, unclaimed: what a lease can bind. */
  available: Instance[];
  leased: number;
  /** Deleting or still provisioning: capacity on its way in or out. */
  pending: number;
  /**
   * Hibernated, not deleting, unclaimed (spec.hibernation): spares, so supply for the floors,
   * but not available (a lease resumes one: docs/reference/kinds.md#hibernation).
   */
  hibernated: Instance[];
  /** Hibernated or resuming for a lease that claimed it: the lease's, no spare any more. */
  resumingForLease: number;
  /** Failed, not deleting, unclaimed: to be replaced. */
  failed: Instance[];
  /**
   * Leases waiting in the pool's queue (binding-model.ts) that the instances it creates can
   * serve: a lease asking for a version the pool does not offer is no demand (pool-offer.ts),
   * nor is one the pool's limits keep from binding (lease-limits.ts).
   */
  pendingDemand: number;
  need: number;
  room: number;
  /** The spares floor used: spec.warmSpares, or the pool's adaptive or scheduled number. */
  warmSpares: number;
  /**
   * The running spares of a pool that hibernates: spec.hibernation.runningSpares, or the adaptive
   * number of an autoscaled pool; undefined for a pool that does not hibernate.
   */
  runningSpares?: number;
}

/** The spares a pool keeps now, in place of its spec's (pool-autoscaling.ts). */
export interface SpareFloors {
  /** Replaces spec.warmSpares: a pool with spec.autoscaling or spec.schedule. */
  warmSpares?: number;
  /** Replaces spec.hibernation.runningSpares: an autoscaled pool that hibernates. */
  runningSpares?: number;
}

/** The floors a pass uses: those given, else the pool's spec (running spares only if it hibernates). */
function floorsOf(
  pool: Stored<ClusterPool>,
  floors: SpareFloors,
): { warmSpares: number; runningSpares?: number } {
  const warmSpares = floors.warmSpares ?? pool.spec.warmSpares ?? 0;
  const hibernation = pool.spec.hibernation;
  if (!hibernation) return { warmSpares };
  return { warmSpares, runningSpares: floors.runningSpares ?? hibernation.runningSpares ?? 0 };
}

export function accountPool(
  pool: Stored<ClusterPool>,
  instances: readonly Instance[],
  leases: readonly Lease[],
  floors: SpareFloors = {},
): PoolAccounting {
  const { warmSpares, runningSpares } = floorsOf(pool, floors);
  const claimed = claimedInstances(instances, leases);
  const offer = poolOffer(pool);
  const limits = poolLimits(pool);
  const demanding = leases.filter(
    (lease) => offerServes(offer, lease) !== false && !blockedByLimits(lease, limits),
  );
  const accounting: PoolAccounting = {
    total: 0,
    terminating: 0,
    available: [],
    leased: 0,
    pending: 0,
    hibernated: [],
    resumingForLease: 0,
    failed: [],
    pendingDemand: poolDemand(pool.metadata.name, demanding, instances),
    need: 0,
    room: 0,
    warmSpares,
    ...(runningSpares === undefined ? {} : { runningSpares }),
  };
  for (const instance of instances) {
    accounting.total += 1;
    const { name } = instance.metadata;
    if (instance.metadata.deletionTimestamp) {
      accounting.pending += 1;
      accounting.terminating += 1;
    } else if (instance.status?.phase === 'Ready') {
      if (claimed.has(name)) accounting.leased += 1;
      else accounting.available.push(instance);
    } else if (instance.status?.phase === 'Failed') {
      if (!claimed.has(name)) accounting.failed.push(instance);
    } else if (stoppedOrResuming(instance)) {
      countStopped(accounting, instance, claimed.has(name));
    } else {
      accounting.pending += 1;
    }
  }
  const { minSize = 0, maxSize } = pool.spec;
  const supply = spareSupply(accounting);
  accounting.need = Math.max(
    minSize - accounting.total,
    warmSpares - supply,
    accounting.pendingDemand - supply,
  );
  accounting.room = maxSize - accounting.total;
  return accounting;
}

/**
 * What the floors count as supply: the available spares, the hibernated ones and those on their
 * way in or out.
 */
export function spareSupply(
  accounting: Pick<PoolAccounting, 'available' | 'hibernated' | 'pending'>,
): number {
  return accounting.available.length + accounting.hibernated.length + accounting.pending;
}

/** Hibernated, or resuming from hibernation (docs/reference/kinds.md#hibernation). */
function stoppedOrResuming(instance: Instance): boolean {
  return instance.status?.phase === 'Hibernated' || resumeUnderWay(instance.status) !== undefined;
}

/**
 * An unclaimed hibernated spare is a hibernated spare; one a lease claimed is the lease's; one
 * resuming for the pool's own running spares is on its way in.
 */
function countStopped(accounting: PoolAccounting, instance: Instance, claimed: boolean): void {
  if (claimed) accounting.resumingForLease += 1;
  else if (instance.status?.phase === 'Hibernated') accounting.hibernated.push(instance);
  else accounting.pending += 1;
}
