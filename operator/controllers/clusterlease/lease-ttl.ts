import { MAX_LEASE_TTL_MS, parseGoDuration } from '../../api/duration.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import { isConflict, isNotFound } from '../../kube/api-error.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { isoSeconds } from './lease-status.js';

/** The Warning Event comes this long before expiry (or a tenth of the TTL, if that is shorter). */
const EXPIRY_WARNING_MS = 5 * 60_000;

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

/**
 * Deletes the lease at its deadline, after a Warning Event shortly before; otherwise asks for the
 * pass that is due next (the work queue waits in steps for delays longer than a timer holds).
 */
export async function enforceTtl(manager: Manager, lease: ClusterLease): Promise<ReconcileResult> {
  const deadline = leaseDeadline(lease);
  if (deadline === undefined) return {};
  const ttlMs = deadline - Date.parse(lease.status!.boundTime!);
  const now = manager.clock.now();
  if (now >= deadline) {
    void manager.events.record(
      lease,
      'Warning',
      'Expired',
      `TTL ${lease.spec.ttl} expired; releasing the cluster`,
    );
    await deleteLease(manager, lease);
    return {};
  }
  const warnAt = deadline - Math.min(EXPIRY_WARNING_MS, ttlMs / 10);
  if (now < warnAt) return { requeueAfterMs: warnAt - now };
  await manager.events.record(
    lease,
    'Warning',
    'ExpiringSoon',
    `TTL ${lease.spec.ttl} expires at ${new Date(deadline).toISOString()}; the cluster will be released then`,
  );
  // Measured after the write: time moves on while it is under way.
  return { requeueAfterMs: Math.max(0, deadline - manager.clock.now()) };
}

/** Deletes this very lease; gone already, or its name taken by a newer one, is fine. */
export async function deleteLease(manager: Manager, lease: ClusterLease): Promise<void> {
  try {
    await manager.client.delete(LEASES, lease.metadata!.name!, lease.metadata!.namespace, {
      uid: lease.metadata!.uid,
    });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}
