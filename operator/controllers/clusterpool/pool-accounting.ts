import type { ClusterPool } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimedInstances, poolDemand } from '../binding/binding-model.js';
import { blockedByLimits, poolLimits } from '../binding/lease-limits.js';
import { offerServes, poolOffer } from '../binding/pool-offer.js';

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
}

/**
 * `warmSpares`, when given, replaces spec.warmSpares: the number a pool with spec.autoscaling or
 * spec.schedule keeps now (pool-autoscaling.ts).
 */
export function accountPool(
  pool: Stored<ClusterPool>,
  instances: readonly Instance[],
  leases: readonly Lease[],
  warmSpares = pool.spec.warmSpares ?? 0,
): PoolAccounting {
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
    failed: [],
    pendingDemand: poolDemand(pool.metadata.name, demanding, instances),
    need: 0,
    room: 0,
    warmSpares,
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
    } else {
      accounting.pending += 1;
    }
  }
  const { minSize = 0, maxSize } = pool.spec;
  const supply = accounting.available.length + accounting.pending;
  accounting.need = Math.max(
    minSize - accounting.total,
    warmSpares - supply,
    accounting.pendingDemand - supply,
  );
  accounting.room = maxSize - accounting.total;
  return accounting;
}
