import { setCondition } from '../../api/conditions.js';
import { FINALIZER_POOL_PROTECTION } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../api/resources.js';
import { POOLS } from '../../api/resources.js';
import { isConflict } from '../../kube/api-error.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { deleteInstanceIf } from '../instance-deletion.js';
import { accountPool, claimedInstances } from './pool-accounting.js';

/**
 * Deleting a pool never takes a job's cluster (Hive's rule for cluster pools): a pool with
 * instances carries the pool-protection finalizer, and once deleted it deletes its unclaimed
 * instances only and waits, saying for which leases, until those leases have released theirs.
 * (Without the finalizer the garbage collector would delete every instance the pool owns.) Any
 * instance may be claimed any moment, so the finalizer is there as long as the pool has one; a
 * pool without instances has none and goes at once.
 */
export class PoolDeletion {
  constructor(private readonly manager: Manager) {}

  /**
   * Adds or removes the finalizer on a pool that is not being deleted: it is needed while the
   * pool has an instance that is not being deleted.
   */
  async protect(pool: ClusterPool, instances: readonly ClusterInstance[]): Promise<ClusterPool> {
    const needed = instances.some((i) => !i.metadata?.deletionTimestamp);
    const finalizers = pool.metadata?.finalizers ?? [];
    if (needed === finalizers.includes(FINALIZER_POOL_PROTECTION)) return pool;
    return this.setFinalizers(
      pool,
      needed
        ? [...finalizers, FINALIZER_POOL_PROTECTION]
        : finalizers.filter((f) => f !== FINALIZER_POOL_PROTECTION),
    );
  }

  /**
   * A deleted pool: deletes its unclaimed instances (each only while it is still unclaimed), and
   * lets the pool go once no instance of it is held by a lease; until then its Terminating
   * condition names the leases it waits for.
   */
  async drain(
    pool: ClusterPool,
    instances: readonly ClusterInstance[],
    leases: readonly ClusterLease[],
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const finalizers = pool.metadata?.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_POOL_PROTECTION)) return {};
    const holding = held(instances, leases);
    const kept = new Set(holding.map((h) => h.instance));
    for (const instance of instances) {
      if (kept.has(instance) || instance.metadata?.deletionTimestamp) continue;
      const outcome = await deleteInstanceIf(
        this.manager.client,
        instance,
        (live) => !live.status?.leaseRef,
      );
      if (outcome === 'deleted')
        context.logger.info(
          { instance: instance.metadata!.name },
          'Deleted unclaimed ClusterInstance of deleted ClusterPool',
        );
    }
    if (holding.length === 0) {
      await this.setFinalizers(
        pool,
        finalizers.filter((f) => f !== FINALIZER_POOL_PROTECTION),
      );
      return {};
    }
    await this.reportWaiting(pool, instances, leases, holding);
    return {};
  }

  private async reportWaiting(
    pool: ClusterPool,
    instances: readonly ClusterInstance[],
    leases: readonly ClusterLease[],
    holding: Held[],
  ): Promise<void> {
    const what = holding.map((h) => `${h.lease} (ClusterInstance ${h.instance.metadata!.name})`);
    const message = `The pool is being deleted; it waits for ClusterLease ${what.join(', ')} to release ${holding.length === 1 ? 'its instance' : 'their instances'}. Unclaimed instances are deleted.`;
    const accounting = accountPool(pool, instances, leases);
    const conditions = setCondition(
      pool.status?.conditions,
      {
        type: 'Terminating',
        status: 'True',
        reason: 'WaitingForLeases',
        message,
        observedGeneration: pool.metadata?.generation,
      },
      this.manager.clock.now(),
    );
    const previous = pool.status?.conditions?.find((c) => c.type === 'Terminating')?.message;
    try {
      await this.manager.client.updateStatus(POOLS, {
        ...pool,
        status: {
          ...pool.status,
          totalInstances: accounting.total,
          terminatingInstances: accounting.terminating,
          availableInstances: accounting.available.length,
          leasedInstances: accounting.leased,
          conditions,
        },
      });
    } catch (error) {
      // A newer version of the pool is on its way: its event brings the next pass.
      if (!isConflict(error)) throw error;
      return;
    }
    if (previous !== message)
      void this.manager.events.record(pool, 'Normal', 'WaitingForLeases', message);
  }

  /** With the pool's resourceVersion, so that another controller's finalizer is never clobbered. */
  private async setFinalizers(pool: ClusterPool, finalizers: string[]): Promise<ClusterPool> {
    return this.manager.client.update(POOLS, {
      ...pool,
      metadata: { ...pool.metadata, finalizers },
    });
  }
}

interface Held {
  instance: ClusterInstance;
  /** The lease that holds it, by name. */
  lease: string;
}

/** Instances of the pool that a lease holds (claimed, and not already being deleted). */
function held(instances: readonly ClusterInstance[], leases: readonly ClusterLease[]): Held[] {
  const claimed = claimedInstances(instances, leases);
  const holders = new Map(
    leases
      .filter((l) => l.status?.instanceRef?.name)
      .map((l) => [l.status!.instanceRef!.name!, l.metadata!.name!]),
  );
  return instances
    .filter((i) => claimed.has(i.metadata!.name!) && !i.metadata?.deletionTimestamp)
    .map((i) => ({
      instance: i,
      lease: i.status?.leaseRef?.name ?? holders.get(i.metadata!.name!) ?? 'unknown',
    }));
}
