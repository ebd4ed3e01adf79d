import { MAX_LEASE_TTL_MS, parseGoDuration } from '../../api/duration.js';
import type { Condition } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { LeaseTimings } from '../../timings.js';
import type { Lease } from '../binding/binding-model.js';
import { LeaseEvent, LeaseReason, isoSeconds } from './lease-status.js';

export type Ttl = { ms: number } | { invalid: string };

/**
 * spec.ttl in milliseconds (0: none). A value the CRD would refuse today (stored before it had a
 * maximum) is invalid, with a message that names the field.
 */
export function leaseTtl(lease: ClusterLease): Ttl {
  const text = lease.spec.ttl;
  if (!text) return { ms: 0 };
  const ms = parseGoDuration(text);
  if (ms === undefined) return { invalid: `spec.ttl "${text}" is not a Go duration` };
  if (ms > MAX_LEASE_TTL_MS) return { invalid: `spec.ttl "${text}" is above the maximum of 8760h` };
  return { ms };
}

/** The deadline (epoch ms) of a bound lease: boundTime + ttl; undefined when none applies. */
export function leaseDeadline(lease: ClusterLease): number | undefined {
  const ttl = leaseTtl(lease);
  const boundTime = lease.status?.boundTime;
  if (!boundTime) return undefined;
  // A bound lease whose stored TTL is beyond the maximum gets the maximum.
  const ms = 'ms' in ttl ? ttl.ms : MAX_LEASE_TTL_MS;
  return ms > 0 ? Date.parse(boundTime) + ms : undefined;
}

/** status.expiresAt as it must be: boundTime + spec.ttl now, also after spec.ttl changed. */
export function expiresAt(lease: ClusterLease): string | undefined {
  const deadline = leaseDeadline(lease);
  return deadline === undefined ? undefined : isoSeconds(deadline);
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
        message: `TTL ${lease.spec.ttl} expires at ${isoSeconds(deadline)}; the cluster will be released then unless spec.ttl is raised`,
      }
    : {
        type: 'ExpiringSoon',
        status: 'False',
        reason: LeaseReason.TTLExtended,
        message:
          deadline === undefined
            ? 'the lease has no TTL any more'
            : `TTL ${lease.spec.ttl} expires at ${isoSeconds(deadline)}`,
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
      `TTL ${lease.spec.ttl} expired; releasing the cluster`,
    );
    await deleteLease(ports.client, lease);
    return {};
  }
  const expiring = (l: Lease): boolean =>
    findCondition(l.status?.conditions, 'ExpiringSoon')?.status === 'True';
  // Not yet due, or due since this pass wrote the status: the next pass sets the condition.
  if (now < warnAt || !expiring(lease)) return { requeueAfterMs: Math.max(0, warnAt - now) };
  if (!expiring(before))
    await ports.events.record(
      lease,
      'Warning',
      LeaseEvent.ExpiringSoon,
      `TTL ${lease.spec.ttl} expires at ${new Date(deadline).toISOString()}; the cluster will be released then`,
    );
  // Measured after the write: time moves on while it is under way.
  return { requeueAfterMs: Math.max(0, deadline - ports.clock.now()) };
}

/** Deletes this very lease; gone already, or its name taken by a newer one, is fine. */
export async function deleteLease(client: KubeClient, lease: Lease): Promise<void> {
  await client.deleteIfExists(LEASES, lease);
}
