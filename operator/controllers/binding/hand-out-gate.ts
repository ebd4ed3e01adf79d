import { findCondition } from '../../api/conditions.js';
import { formatGoDuration, parseGoDuration } from '../../../client/api/duration.js';
import type { ClusterPool } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';
import { claimOf, isUsable } from './binding-model.js';

/*
 * The hand-out gate (docs/reference/instances.md#guest-health): a lease binds only a Ready guest
 * whose readiness gates (GuestHealthy, written by the guest health controller) passed in a check
 * no older than lease.guestHealthMaxAge, and whose certificates outlive the lease by a margin.
 */

/** What the certificates must outlive beyond the lease. */
export const CERTIFICATE_MARGIN_MS = 3_600_000;
/** How long a lease without a TTL, of a pool without maxLeaseDuration, is expected to hold. */
export const UNBOUNDED_LEASE_MS = 24 * 3_600_000;

/**
 * How long a lease of the pool will hold its cluster: its TTL, else the pool's
 * maxLeaseDuration, else a day.
 */
export function expectedHoldMs(lease: Lease | undefined, pool: ClusterPool | undefined): number {
  const ttl = lease?.spec.ttl ? parseGoDuration(lease.spec.ttl) : undefined;
  if (ttl) return ttl;
  const max = pool?.spec.maxLeaseDuration ? parseGoDuration(pool.spec.maxLeaseDuration) : undefined;
  return max || UNBOUNDED_LEASE_MS;
}

/**
 * Why the instance may not be handed out now, or undefined when it may. The wording names the
 * failing gate as the instance reports it.
 */
export function handOutProblem(
  instance: Instance,
  lease: Lease | undefined,
  pool: ClusterPool | undefined,
  now: number,
  maxAgeMs: number,
): string | undefined {
  const name = `ClusterInstance ${instance.metadata.name}`;
  const healthy = findCondition(instance.status?.conditions, 'GuestHealthy');
  if (!healthy) return `${name} has not had its readiness gates checked yet`;
  if (healthy.status !== 'True') return `${name} fails a readiness gate: ${healthy.message}`;
  return staleCheck(instance, now, maxAgeMs) ?? shortCertificates(instance, lease, pool, now);
}

function staleCheck(instance: Instance, now: number, maxAgeMs: number): string | undefined {
  const at = instance.status?.guestHealth?.checkedAt;
  const checkedAt = Date.parse(at ?? '');
  // A check of the guest before it was stopped says nothing of the one that booted again
  // (docs/reference/instances.md#hibernation).
  const resumed = Date.parse(instance.status?.hibernation?.resumeStartedAt ?? '');
  if (!Number.isNaN(resumed) && !(checkedAt >= resumed))
    return `ClusterInstance ${instance.metadata.name} has not had its readiness gates checked since it resumed from hibernation`;
  if (!Number.isNaN(checkedAt) && now - checkedAt <= maxAgeMs) return undefined;
  return `ClusterInstance ${instance.metadata.name} had its readiness gates last checked at ${at ?? 'no time'}, more than ${formatGoDuration(maxAgeMs)} ago`;
}

/** Why the recorded certificates do not outlive the lease by the margin, or undefined. */
export function shortCertificates(
  instance: Instance,
  lease: Lease | undefined,
  pool: ClusterPool | undefined,
  now: number,
): string | undefined {
  const at = instance.status?.guestHealth?.certificatesNotAfter;
  const notAfter = Date.parse(at ?? '');
  const holdMs = expectedHoldMs(lease, pool);
  if (Number.isNaN(notAfter) || notAfter >= now + holdMs + CERTIFICATE_MARGIN_MS) return undefined;
  return `ClusterInstance ${instance.metadata.name} has certificates that expire at ${at}, before ${formatGoDuration(holdMs)} of lease and a ${formatGoDuration(CERTIFICATE_MARGIN_MS)} margin`;
}

/**
 * The pool's instances as a lease may see them: the Ready, unclaimed ones that fail the gate are
 * held back (with why), every other one is kept (claims and bindings still count).
 */
export function gateInstances(
  instances: readonly Instance[],
  lease: Lease,
  pool: ClusterPool,
  now: number,
  maxAgeMs: number,
): { offered: Instance[]; heldBack: { instance: Instance; problem: string }[] } {
  const offered: Instance[] = [];
  const heldBack: { instance: Instance; problem: string }[] = [];
  for (const instance of instances) {
    const problem =
      isUsable(instance) && !claimOf(instance)
        ? handOutProblem(instance, lease, pool, now, maxAgeMs)
        : undefined;
    if (problem) heldBack.push({ instance, problem });
    else offered.push(instance);
  }
  return { offered, heldBack };
}
