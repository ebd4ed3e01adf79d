import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterPool } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import type { Instance } from '../binding/binding-model.js';
import { CRC_BUNDLE_NOT_ALLOWED } from '../bundle-consumers.js';
import type { PoolAccounting } from './pool-accounting.js';

export type Pool = Stored<ClusterPool>;

/**
 * Reasons of the pool's conditions (part of the compatibility contract); ProvisioningAllowed also
 * takes the namespace policy's (namespace-policy.ts).
 */
export const PoolReason = {
  MaxSizeTooSmall: 'MaxSizeTooSmall',
  AtCapacity: 'AtCapacity',
  CapacitySufficient: 'CapacitySufficient',
  NoFailures: 'NoFailures',
  InstancesFailing: 'InstancesFailing',
  NamesFree: 'NamesFree',
  NameTaken: 'NameTaken',
  WaitingForLeases: 'WaitingForLeases',
  CRCVersionNotAllowed: 'CRCVersionNotAllowed',
  CRCBundleNotAllowed: CRC_BUNDLE_NOT_ALLOWED,
  VersionStreamResolved: 'VersionStreamResolved',
  VersionStreamNotFound: 'VersionStreamNotFound',
  VersionStreamNotResolved: 'VersionStreamNotResolved',
  AllCurrent: 'AllCurrent',
  StaleInstances: 'StaleInstances',
} as const;

/** Reasons of the Events on a pool and its instances. */
export const PoolEvent = {
  InstanceCreated: 'InstanceCreated',
  SpareHibernating: 'SpareHibernating',
  SpareResuming: 'SpareResuming',
  InstanceFailed: 'InstanceFailed',
  WaitingForLeases: PoolReason.WaitingForLeases,
  CRCVersionNotAllowed: PoolReason.CRCVersionNotAllowed,
  CRCBundleNotAllowed: PoolReason.CRCBundleNotAllowed,
  VersionStreamNotFound: PoolReason.VersionStreamNotFound,
  VersionStreamNotResolved: PoolReason.VersionStreamNotResolved,
  /** The version new instances get changed (the followed stream moved). */
  VersionChanged: 'VersionChanged',
  StaleInstanceReplaced: 'StaleInstanceReplaced',
  /** A Ready spare failed its readiness gates for longer than pool.unhealthySpareGrace. */
  UnhealthySpareReplaced: 'UnhealthySpareReplaced',
} as const;

export function readyMessage(instance: ClusterInstance): string {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  return ready ? `${ready.reason}: ${ready.message}` : 'no Ready condition';
}

/**
 * CapacityAvailable (docs/reference/kinds.md#pool-reconcile): the floors fit in maxSize, and the
 * deficit fits in the room left.
 */
export function capacityCondition(
  pool: Pool,
  accounting: PoolAccounting,
  generation: number | undefined,
): ConditionUpdate {
  const { maxSize, minSize = 0, warmSpares = 0 } = pool.spec;
  if (maxSize < minSize || maxSize < warmSpares) {
    return {
      type: 'CapacityAvailable',
      status: 'False',
      reason: PoolReason.MaxSizeTooSmall,
      message: `maxSize (${maxSize}) is below minSize (${minSize}) and/or warmSpares (${warmSpares}): pool cannot reach its configured floors`,
      observedGeneration: generation,
    };
  }
  if (accounting.need > 0 && accounting.room <= 0) {
    return {
      type: 'CapacityAvailable',
      status: 'False',
      reason: PoolReason.AtCapacity,
      message: `pool is at maxSize (${maxSize}); unmet deficit of ${accounting.need} instance(s) (pendingDemand=${accounting.pendingDemand}) cannot be satisfied until capacity is released`,
      observedGeneration: generation,
    };
  }
  return {
    type: 'CapacityAvailable',
    status: 'True',
    reason: PoolReason.CapacitySufficient,
    message: 'pool has capacity to satisfy minSize/warmSpares and pending lease demand',
    observedGeneration: generation,
  };
}

/**
 * Names of the form `<pool>-<N>` held by instances that are not this pool's (not among
 * `members`: it did not make them, whatever their labels say): the pool skips them, and says so.
 */
export function foreignNames(
  pool: Pool,
  namespaceInstances: readonly Instance[],
  members: readonly Instance[],
): string[] {
  const { name } = pool.metadata;
  const pattern = new RegExp(`^${name}-\\d+$`);
  const own = new Set(members.map((i) => i.metadata.uid));
  return namespaceInstances
    .filter((i) => pattern.test(i.metadata.name) && !own.has(i.metadata.uid))
    .map((i) => i.metadata.name)
    .sort();
}

/** NamesAvailable: False while objects the pool does not own hold names it would choose. */
export function namesCondition(
  pool: Pool,
  taken: readonly string[],
  generation: number | undefined,
): ConditionUpdate {
  if (taken.length === 0)
    return {
      type: 'NamesAvailable',
      status: 'True',
      reason: PoolReason.NamesFree,
      message: 'no object outside this pool holds a name of its instances',
      observedGeneration: generation,
    };
  const { name } = pool.metadata;
  const one = taken.length === 1;
  return {
    type: 'NamesAvailable',
    status: 'False',
    reason: PoolReason.NameTaken,
    message: `ClusterInstance ${taken.join(', ')} ${one ? 'is' : 'are'} not this pool's (${one ? 'it was' : 'they were'} not made by ClusterPool ${name}); the pool skips ${one ? 'that name' : 'those names'}, names its instances otherwise, and neither counts nor binds ${one ? 'it' : 'them'}`,
    observedGeneration: generation,
  };
}
