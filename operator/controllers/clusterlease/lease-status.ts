import type { Condition } from '../../api/conditions.js';
import { setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { sameContent } from '../../kube/objects.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Lease } from '../binding/binding-model.js';
import { LimitReason } from '../binding/lease-limits.js';

export type LeaseStatus = NonNullable<ClusterLease['status']>;

/** Reasons of the lease's Bound and Ready conditions (part of the compatibility contract). */
export const LeaseReason = {
  InstanceBound: 'InstanceBound',
  WaitingForCapacity: 'WaitingForCapacity',
  /** Pending: the pool's Ready spares fail their readiness gates (GuestHealthy, or its age). */
  WaitingForHealthyInstance: 'WaitingForHealthyInstance',
  /** Pending: the lease claimed a hibernated spare and waits for it to run and pass its gates. */
  Resuming: 'Resuming',
  PoolNotFound: 'PoolNotFound',
  PoolDeleting: 'PoolDeleting',
  InstanceNotReady: 'InstanceNotReady',
  InstanceLost: 'InstanceLost',
  InvalidSpec: 'InvalidSpec',
  KubeconfigSecretConflict: 'KubeconfigSecretConflict',
  /** Pending: no instance of the pool has or will get the version spec.ocpVersion asks for. */
  VersionUnavailable: 'VersionUnavailable',
  /** ExpiringSoon True: the deadline is within the warning time (lease.expiryWarning). */
  TTLExpiring: 'TTLExpiring',
  /** ExpiringSoon False after it was True: spec.ttl was raised (or removed). */
  TTLExtended: 'TTLExtended',
  /** Pending, or TTLAccepted False: the pool's limits refuse the TTL or the hold. */
  ...LimitReason,
  /** TTLAccepted True again after a refusal. */
  TTLWithinPoolLimit: 'TTLWithinPoolLimit',
} as const;

/** Reasons of the Events on a lease (a failed lease's Event takes its condition's reason). */
export const LeaseEvent = {
  Bound: 'Bound',
  ResumeFailed: 'ResumeFailed',
  InstanceNotReady: 'InstanceNotReady',
  InstanceReady: 'InstanceReady',
  InstanceLost: 'InstanceLost',
  KubeconfigSecretRepaired: 'KubeconfigSecretRepaired',
  ExpiringSoon: 'ExpiringSoon',
  Expired: 'Expired',
  /** A bound lease was labelled held: its hold counts from now. */
  Held: 'Held',
} as const;

type ConditionStatus = Condition['status'];
type ConditionUpdate = { status: ConditionStatus; reason: string; message: string };

/**
 * The Bound and Ready conditions. Bound says whether the lease holds an instance; Ready whether
 * its cluster can be used now (`kubectl wait --for=condition=Ready` reads it). While the lease
 * waits or failed, Ready gives the same reason as Bound: that is why it cannot be used.
 */
export function leaseConditions(
  lease: Lease,
  now: number,
  bound: ConditionUpdate,
  ready: ConditionUpdate = bound,
): Condition[] {
  const generation = lease.metadata.generation;
  const withBound = setCondition(
    lease.status?.conditions,
    { type: 'Bound', ...bound, observedGeneration: generation },
    now,
  );
  return setCondition(withBound, { type: 'Ready', ...ready, observedGeneration: generation }, now);
}

/** Bound to `instance`. */
export function boundTo(instance: string): ConditionUpdate {
  return {
    status: 'True',
    reason: LeaseReason.InstanceBound,
    message: `bound to ClusterInstance "${instance}"`,
  };
}

/**
 * Bound to `instance`, which is Ready, and Ready with the same reason and message: clients wait
 * on either condition and read its reason (InstanceBound), so the two stay alike while usable.
 */
export function usableConditions(lease: Lease, now: number, instance: string): Condition[] {
  return leaseConditions(lease, now, boundTo(instance));
}

/** Pending, with the reason it waits (and its place in the queue, when it has one). */
export function pendingStatus(
  lease: Lease,
  now: number,
  reason: string,
  message: string,
  queuePosition?: number,
): LeaseStatus {
  const status: LeaseStatus = {
    ...lease.status,
    phase: 'Pending',
    observedGeneration: lease.metadata.generation,
    conditions: leaseConditions(lease, now, { status: 'False', reason, message }),
  };
  if (queuePosition === undefined) delete status.queuePosition;
  else status.queuePosition = queuePosition;
  return status;
}

/** Writes the status through its subresource, only when it changed. */
export async function writeLeaseStatus(
  ports: ControllerPorts,
  lease: Lease,
  status: LeaseStatus,
): Promise<Lease> {
  if (sameContent(lease.status ?? {}, status)) return lease;
  return ports.client.updateStatus(LEASES, { ...lease, status });
}

/** Failed for good, with the reason, and a Warning Event: input that no retry can fix. */
export async function failLease(
  ports: ControllerPorts,
  lease: Lease,
  reason: string,
  message: string,
): Promise<void> {
  await writeLeaseStatus(ports, lease, {
    ...lease.status,
    phase: 'Failed',
    observedGeneration: lease.metadata.generation,
    conditions: leaseConditions(lease, ports.clock.now(), { status: 'False', reason, message }),
  });
  void ports.events.record(lease, 'Warning', reason, message);
}
