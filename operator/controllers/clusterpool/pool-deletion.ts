import { setCondition } from '../../api/conditions.js';
import { FINALIZER_POOL_PROTECTION } from '../../api/labels.js';
import { POOLS } from '../../../client/api/resources.js';
import { writePoolStatus } from './pool-status-write.js';
import { withFinalizer, withoutFinalizer } from '../../kube/ownership.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimOf, claimedInstances, isClaimed } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';
import { accountPool } from './pool-accounting.js';
import type { Pool } from './pool-conditions.js';
import { PoolEvent, PoolReason } from './pool-conditions.js';

/**
 * Deleting a pool never takes a job's cluster (Hive's rule for cluster pools): a pool with
 * instances carries the pool-protection finalizer, and once deleted it deletes its unclaimed
 * instances only and waits, saying for which leases, until those leases have released theirs.
 * (Without the finalizer the garbage collector would delete every instance the pool owns.) Any
 * instance may be claimed any moment, so the finalizer is there as long as the pool has one; a
 * pool without instances has none and goes at once.
 */
export class PoolDeletion {
  constructor(private readonly ports: ControllerPorts) {}

  /**
   * Adds or removes the finalizer on a pool that is not being deleted: it is needed while the
   * pool has an instance that is not being deleted. Written with the pool's resourceVersion, so
   * that another controller's finalizer is never clobbered.
   */
  async protect(pool: Pool, instances: readonly Instance[]): Promise<Pool> {
    const needed = instances.some((i) => !i.metadata.deletionTimestamp);
    const next = needed
      ? withFinalizer(pool, FINALIZER_POOL_PROTECTION)
      : withoutFinalizer(pool, FINALIZER_POOL_PROTECTION);
    return next === pool ? pool : this.ports.client.update(POOLS, next);
  }

  /**
   * A deleted pool: deletes its unclaimed instances (each only while it is still unclaimed), and
   * lets the pool go once no instance of it is held by a lease; until then its Terminating
   * condition names the leases it waits for.
   */
  async drain(
    pool: Pool,
    instances: readonly Instance[],
    leases: readonly Lease[],
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if (!pool.metadata.finalizers?.includes(FINALIZER_POOL_PROTECTION)) return {};
    const holding = holdersOf(instances, leases);
    const kept = new Set(holding.map((h) => h.instance));
    for (const instance of instances) {
      if (kept.has(instance) || instance.metadata.deletionTimestamp) continue;
      const unclaimed = (live: Instance): boolean => !isClaimed(live, leases);
      const outcome = await deleteInstanceIf(this.ports.client, instance, unclaimed);
      if (outcome === 'deleted')
        context.logger.info(
          { instance: instance.metadata.name },
          'Deleted unclaimed ClusterInstance of deleted ClusterPool',
        );
    }
    if (holding.length === 0) {
      await this.ports.client.update(POOLS, withoutFinalizer(pool, FINALIZER_POOL_PROTECTION));
      return {};
    }
    await this.reportWaiting(pool, instances, leases, holding);
    return {};
  }

  private async reportWaiting(
    pool: Pool,
    instances: readonly Instance[],
    leases: readonly Lease[],
    holding: Held[],
  ): Promise<void> {
    const what = holding.map((h) => `${h.lease} (ClusterInstance ${h.instance.metadata.name})`);
    const message = `The pool is being deleted; it waits for ClusterLease ${what.join(', ')} to release ${holding.length === 1 ? 'its instance' : 'their instances'}. Unclaimed instances are deleted.`;
    const accounting = accountPool(pool, instances, leases);
    const conditions = setCondition(
      pool.status?.conditions,
      {
        type: 'Terminating',
        status: 'True',
        reason: PoolReason.WaitingForLeases,
        message,
        observedGeneration: pool.metadata.generation,
      },
      this.ports.clock.now(),
    );
    const previous = pool.status?.conditions?.find((c) => c.type === 'Terminating')?.message;
    const status = {
      ...pool.status,
      totalInstances: accounting.total,
      terminatingInstances: accounting.terminating,
      availableInstances: accounting.available.length,
      leasedInstances: accounting.leased,
      conditions,
    };
    const written = await writePoolStatus(this.ports, pool, status);
    if (written && previous !== message)
      void this.ports.events.record(pool, 'Normal', PoolEvent.WaitingForLeases, message);
  }
}

interface Held {
  instance: Instance;
  /** The lease that holds it, by name. */
  lease: string;
}

/** Instances of the pool that a lease holds (claimed, and not already being deleted). */
function holdersOf(instances: readonly Instance[], leases: readonly Lease[]): Held[] {
  const claimed = claimedInstances(instances, leases);
  const holders = new Map<string, string>();
  for (const lease of leases) {
    const bound = lease.status?.instanceRef?.name;
    if (bound) holders.set(bound, lease.metadata.name);
  }
  return instances
    .filter((i) => claimed.has(i.metadata.name) && !i.metadata.deletionTimestamp)
    .map((i) => ({
      instance: i,
      lease: claimOf(i)?.name ?? holders.get(i.metadata.name) ?? 'unknown',
    }));
}
