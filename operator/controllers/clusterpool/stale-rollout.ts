import type { ConditionUpdate } from '../../api/conditions.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { byCreation, claimedInstances, isClaimed, pendingQueue } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';
import { canTake } from '../binding/version-match.js';
import type { PoolAccounting } from './pool-accounting.js';
import type { Pool } from './pool-conditions.js';
import { PoolEvent, PoolReason } from './pool-conditions.js';

/** An instance made with another version than the one the pool gives new instances. */
export function isStale(instance: Instance, version: string): boolean {
  return instance.spec.template.ocpVersion !== version;
}

/** Unclaimed instances, not being deleted, of another version: oldest first. */
export function staleInstances(
  instances: readonly Instance[],
  leases: readonly Lease[],
  version: string,
): Instance[] {
  const claimed = claimedInstances(instances, leases);
  return instances
    .filter(
      (i) => !i.metadata.deletionTimestamp && !claimed.has(i.metadata.name) && isStale(i, version),
    )
    .sort(byCreation);
}

/** AllInstancesCurrent: whether every unclaimed instance has the pool's version. */
export function currentCondition(pool: Pool, stale: number, version: string): ConditionUpdate {
  const observedGeneration = pool.metadata.generation;
  if (stale === 0)
    return {
      type: 'AllInstancesCurrent',
      status: 'True',
      reason: PoolReason.AllCurrent,
      message: `Every unclaimed instance has OpenShift ${version}`,
      observedGeneration,
    };
  return {
    type: 'AllInstancesCurrent',
    status: 'False',
    reason: PoolReason.StaleInstances,
    message: `${stale} unclaimed instance(s) of another version than ${version}; Ready ones are replaced one at a time while the pool is at its floors and nothing else is provisioning; claimed instances are left to their leases`,
    observedGeneration,
  };
}

/**
 * Replaces stale spares as Hive's ClusterPool does: one at a time, and only while the pool is at
 * its floors (no deficit) and nothing else is provisioning, failing or being deleted, so the
 * pool never has fewer ready spares than its floors ask for beyond the one being replaced. The
 * oldest Ready, unclaimed stale instance is deleted (by UID and resourceVersion, decided again on
 * a live read if it changed: it may just have been claimed), unless a waiting lease that asks
 * for a version can take it (one asking for exactly the old version has nothing else). The pool
 * then creates its successor with the new version.
 * True when it deleted one.
 */
export async function replaceStale(
  ports: ControllerPorts,
  pool: Pool,
  seen: { accounting: PoolAccounting; leases: readonly Lease[]; version: string },
  context: ReconcileContext,
): Promise<boolean> {
  const { accounting, leases, version } = seen;
  if (accounting.need > 0 || accounting.pending > 0 || accounting.failed.length > 0) return false;
  const waiting = pendingQueue(pool.metadata.name, leases, accounting.available).filter(
    (lease) => lease.spec.ocpVersion,
  );
  const victim = accounting.available
    .filter((i) => isStale(i, version) && !waiting.some((lease) => canTake(lease, i)))
    .sort(byCreation)[0];
  if (!victim) return false;
  const stillStaleSpare = (live: Instance): boolean =>
    live.status?.phase === 'Ready' &&
    !live.metadata.deletionTimestamp &&
    !isClaimed(live, leases) &&
    isStale(live, version);
  if ((await deleteInstanceIf(ports.client, victim, stillStaleSpare)) !== 'deleted') return false;
  const { name } = victim.metadata;
  const was = victim.spec.template.ocpVersion;
  context.logger.info({ instance: name, was, version }, 'Deleted stale ClusterInstance');
  void ports.events.record(
    pool,
    'Normal',
    PoolEvent.StaleInstanceReplaced,
    `Deleted unclaimed ClusterInstance ${name} of OpenShift ${was} to replace it with ${version}`,
  );
  return true;
}
