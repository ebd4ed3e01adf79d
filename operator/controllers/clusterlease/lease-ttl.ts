import { MAX_LEASE_TTL_MS } from '../../../client/api/duration.js';
import type { Condition } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { LeaseTimings } from '../../timings.js';
import type { Lease } from '../binding/binding-model.js';
import { leaseTtl } from '../binding/lease-limits.js';
import { LeaseEvent, LeaseReason } from './lease-status.js';
import { metaTime } from '../../../client/kube/meta-time.js';

/** The deadline (epoch ms) spec.ttl asks for: boundTime + ttl; undefined when none applies. */
function requestedDeadline(lease: ClusterLease): number | undefined {
  const ttl = leaseTtl(lease);
  const boundTime = lease.status?.boundTime;
  if (!boundTime) return undefined;
  // A bound lease whose stored TTL is beyond the maximum gets the maximum.
  const ms = 'ms' in ttl ? ttl.ms : MAX_LEASE_TTL_MS;
  return ms > 0 ? Date.parse(boundTime) + ms : undefined;
}

/**
 * The deadline (epoch ms) a bound lease is held to: status.expiresAt, the one last accepted
 * (lease-limits.ts); undefined when none applies.
 */
function leaseDeadline(lease: ClusterLease): number | undefined {
  const recorded = lease.status?.expiresAt;
  return recorded ? Date.parse(recorded) : undefined;
}

/** The TTL in a message: spec.ttl's, unless a change of it was not accepted (lease-limits.ts). */
function ttlWords(lease: ClusterLease): string {
  return expiresAt(lease) === lease.status?.expiresAt
    ? `TTL ${lease.spec.ttl}`
    : 'The accepted TTL';
}

/** The expiresAt that spec.ttl asks for now: boundTime + spec.ttl, also after spec.ttl changed. */
export function expiresAt(lease: ClusterLease): string | undefined {
  const deadline = requestedDeadline(lease);
  return deadline === undefined ? undefined : metaTime(deadline);
}

/** When ExpiringSoon is due: lease.expiryWarning before the deadline, at most a tenth of the TTL. */
function warningTime(lease: ClusterLease, timings: LeaseTimings): number | undefined {
  const deadline = leaseDeadline(lease);
  if (deadline === undefined) return undefined;
  const ttlMs = deadline - Date.parse(lease.status?.boundTime ?? '');
  return deadline - Math.min(timings.expiryWarningMs, ttlMs / 10);
}

/**
 * The ExpiringSoon condition as it must be now: True from the warning time on; False once a
 * raised TTL (or none) moves the deadline back out of reach. A lease that never came near its
 * deadline does not carry it.
 */
export function expiryConditions(
  lease: ClusterLease,
  timings: LeaseTimings,
  now: number,
): Condition[] | undefined {
  const conditions = lease.status?.conditions;
  const warnAt = warningTime(lease, timings);
  const deadline = leaseDeadline(lease);
  const expiring = warnAt !== undefined && deadline !== undefined && now >= warnAt;
  const current = findCondition(conditions, 'ExpiringSoon');
  if (!expiring && !current) return conditions;
  const update: Omit<Condition, 'lastTransitionTime'> = expiring
    ? {
        type: 'ExpiringSoon',
        status: 'True',
        reason: LeaseReason.TTLExpiring,
        message: `${ttlWords(lease)} expires at ${metaTime(deadline)}; the cluster will be released then unless spec.ttl is raised`,
      }
    : {
        type: 'ExpiringSoon',
        status: 'False',
        reason: LeaseReason.TTLExtended,
        message:
          deadline === undefined
            ? 'the lease has no TTL any more'
            : `${ttlWords(lease)} expires at ${metaTime(deadline)}`,
      };
  return setCondition(
    conditions,
    { ...update, observedGeneration: lease.metadata?.generation },
    now,
  );
}

/**
 * Deletes the lease at its deadline; a Warning Event when ExpiringSoon has just turned True
 * (`before` is the lease as it was before this pass's status write); otherwise asks for the pass
 * that is due next (the work queue waits in steps for delays longer than a timer holds).
 */
export async function enforceTtl(
  ports: ControllerPorts,
  timings: LeaseTimings,
  lease: Lease,
  before: Lease = lease,
): Promise<ReconcileResult> {
  const deadline = leaseDeadline(lease);
  const warnAt = warningTime(lease, timings);
  if (deadline === undefined || warnAt === undefined) return {};
  const now = ports.clock.now();
  if (now >= deadline) {
    void ports.events.record(
      lease,
      'Warning',
      LeaseEvent.Expired,
      `${ttlWords(lease)} expired; releasing the cluster`,
    );
    await deleteLease(ports.client, lease);
    return {};
  }
  const expiring = (l: Lease): boolean =>
    findCondition(l.status?.conditions, 'ExpiringSoon')?.status === 'True';
  // Not yet due, or due since this pass wrote the status: the next pass sets the condition.
  if (now < warnAt || !expiring(lease)) return { requeueAt: warnAt };
  if (!expiring(before))
    await ports.events.record(
      lease,
      'Warning',
      LeaseEvent.ExpiringSoon,
      `${ttlWords(lease)} expires at ${new Date(deadline).toISOString()}; the cluster will be released then`,
    );
  return { requeueAt: deadline };
}

/** Deletes this very lease; gone already, or its name taken by a newer one, is fine. */
export async function deleteLease(client: KubeClient, lease: Lease): Promise<void> {
  await client.deleteIfExists(LEASES, lease);
}
