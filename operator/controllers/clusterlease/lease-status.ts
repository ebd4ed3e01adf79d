import type { Condition } from '../../api/conditions.js';
import { setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import { sameContent } from '../../kube/objects.js';
import type { Manager } from '../../runtime/manager.js';

export type LeaseStatus = NonNullable<ClusterLease['status']>;
export type LeasePhase = NonNullable<LeaseStatus['phase']>;

/** Reasons of the lease's Bound and Ready conditions (and of its Events). */
export const LeaseReason = {
  InstanceBound: 'InstanceBound',
  WaitingForCapacity: 'WaitingForCapacity',
  PoolNotFound: 'PoolNotFound',
  PoolDeleting: 'PoolDeleting',
  InstanceNotReady: 'InstanceNotReady',
  InstanceLost: 'InstanceLost',
  InvalidSpec: 'InvalidSpec',
  KubeconfigSecretConflict: 'KubeconfigSecretConflict',
} as const;

type ConditionStatus = Condition['status'];

/** RFC 3339 with whole seconds, as metav1.Time is written. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The Bound and Ready conditions. They move together, except while a bound instance is not Ready:
 * the lease is still Bound to it, but not Ready. Ready is what `kubectl wait
 * --for=condition=Ready` reads.
 */
export function leaseConditions(
  lease: ClusterLease,
  now: number,
  bound: { status: ConditionStatus; reason: string; message: string },
  ready: { status: ConditionStatus; reason: string; message: string } = bound,
): Condition[] {
  const generation = lease.metadata?.generation;
  const withBound = setCondition(
    lease.status?.conditions,
    { type: 'Bound', ...bound, observedGeneration: generation },
    now,
  );
  return setCondition(withBound, { type: 'Ready', ...ready, observedGeneration: generation }, now);
}

/** Pending, with the reason it waits (and its place in the queue, when it has one). */
export function pendingStatus(
  lease: ClusterLease,
  now: number,
  reason: string,
  message: string,
  queuePosition?: number,
): LeaseStatus {
  const status: LeaseStatus = {
    ...lease.status,
    phase: 'Pending',
    observedGeneration: lease.metadata?.generation,
    conditions: leaseConditions(lease, now, { status: 'False', reason, message }),
  };
  if (queuePosition === undefined) delete status.queuePosition;
  else status.queuePosition = queuePosition;
  return status;
}

/** Writes the status through its subresource, only when it changed. */
export async function writeLeaseStatus(
  manager: Manager,
  lease: ClusterLease,
  status: LeaseStatus,
): Promise<ClusterLease> {
  if (sameContent(lease.status ?? {}, status)) return lease;
  return manager.client.updateStatus(LEASES, { ...lease, status });
}

/** Failed for good, with the reason, and a Warning Event. */
export async function failLease(
  manager: Manager,
  lease: ClusterLease,
  reason: string,
  message: string,
): Promise<void> {
  await writeLeaseStatus(manager, lease, {
    ...lease.status,
    phase: 'Failed',
    observedGeneration: lease.metadata?.generation,
    conditions: leaseConditions(lease, manager.clock.now(), { status: 'False', reason, message }),
  });
  void manager.events.record(lease, 'Warning', reason, message);
}
