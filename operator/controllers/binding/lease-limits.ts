import { MAX_LEASE_TTL_MS, parseGoDuration } from '../../../client/api/duration.js';
import type { ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { isPendingLease } from './binding-model.js';

/**
 * The clocks of a CI runner (which computes a hold's TTL) and of the operator (which records when
 * the hold began) may differ: a hold may end this much later than maxHoldDuration after heldAt.
 */
export const HOLD_CLOCK_SKEW_MS = 60_000;

/** Why a pending lease may not bind under its pool's limits (ClusterLease Ready reasons). */
export const LimitReason = {
  /** The pool has maxLeaseDuration and the lease has no TTL. */
  TTLRequired: 'TTLRequired',
  /** The TTL reaches beyond what the pool allows (also TTLAccepted False on a bound lease). */
  TTLAbovePoolLimit: 'TTLAbovePoolLimit',
  /** Labelled held before it was ever bound. */
  HeldBeforeBinding: 'HeldBeforeBinding',
} as const;

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

/** What a pool allows its leases (spec.maxLeaseDuration, spec.maxHoldDuration), parsed. */
export interface PoolLimits {
  pool: string;
  maxLeaseMs?: number;
  maxLeaseText?: string;
  maxHoldMs?: number;
  maxHoldText?: string;
}

export interface Refusal {
  reason: string;
  message: string;
}

export function poolLimits(pool: ClusterPool): PoolLimits {
  const { maxLeaseDuration, maxHoldDuration } = pool.spec;
  const limits: PoolLimits = { pool: pool.metadata?.name ?? '' };
  const lease = maxLeaseDuration ? parseGoDuration(maxLeaseDuration) : undefined;
  const hold = maxHoldDuration ? parseGoDuration(maxHoldDuration) : undefined;
  if (lease) Object.assign(limits, { maxLeaseMs: lease, maxLeaseText: maxLeaseDuration });
  if (hold) Object.assign(limits, { maxHoldMs: hold, maxHoldText: maxHoldDuration });
  return limits;
}

/** Whether two pools' limits differ (leases waiting on one must hear of it). */
export function limitsChanged(before: ClusterPool, after: ClusterPool): boolean {
  return (
    before.spec.maxLeaseDuration !== after.spec.maxLeaseDuration ||
    before.spec.maxHoldDuration !== after.spec.maxHoldDuration
  );
}

export function isHeldLabelled(lease: ClusterLease): boolean {
  return lease.metadata?.labels?.[LABEL_LEASE_HELD] === 'true';
}

/**
 * Why a pending lease may not bind under its pool's limits, or undefined when it may. Nothing is
 * clamped: the lease waits until its spec (or the pool) changes. A lease is held only once it was
 * bound, so the held label on a pending lease is refused, not taken as a hold.
 */
export function bindRefusal(lease: ClusterLease, limits: PoolLimits): Refusal | undefined {
  const pool = `ClusterPool ${limits.pool}`;
  if (isHeldLabelled(lease))
    return {
      reason: LimitReason.HeldBeforeBinding,
      message: `the lease is labelled ${LABEL_LEASE_HELD}=true but was never bound: a lease is held only after binding (the Action's hold-on-failure sets the label); remove the label to bind`,
    };
  if (limits.maxLeaseMs === undefined) return undefined;
  const ttl = leaseTtl(lease);
  const ms = 'ms' in ttl ? ttl.ms : Infinity;
  if (ms === 0)
    return {
      reason: LimitReason.TTLRequired,
      message: `spec.ttl is required: ${pool} limits its leases to spec.maxLeaseDuration ${limits.maxLeaseText}; the lease binds once it has a TTL within that`,
    };
  if (ms > limits.maxLeaseMs)
    return {
      reason: LimitReason.TTLAbovePoolLimit,
      message: `spec.ttl ${lease.spec.ttl} is above what ${pool} allows: spec.maxLeaseDuration ${limits.maxLeaseText}, counted from binding; the lease binds once its TTL is within that`,
    };
  return undefined;
}

/** A pending lease that its pool's limits keep from binding: no demand, no place in the queue. */
export function blockedByLimits(lease: ClusterLease, limits: PoolLimits): boolean {
  return isPendingLease(lease) && bindRefusal(lease, limits) !== undefined;
}

/**
 * The latest deadline (epoch ms) a bound lease may have, or undefined when its pool sets none:
 * boundTime + maxLeaseDuration, and for a lease held since heldAt, heldAt + maxHoldDuration when
 * that is later (docs/reference/kinds.md#lease-limits).
 */
export function latestDeadline(
  lease: ClusterLease,
  limits: PoolLimits,
  heldAt: number | undefined,
): number | undefined {
  const boundTime = Date.parse(lease.status?.boundTime ?? '');
  if (limits.maxLeaseMs === undefined || Number.isNaN(boundTime)) return undefined;
  const cap = boundTime + limits.maxLeaseMs;
  if (heldAt === undefined || limits.maxHoldMs === undefined || !isHeldLabelled(lease)) return cap;
  return Math.max(cap, heldAt + limits.maxHoldMs + HOLD_CLOCK_SKEW_MS);
}

/** What the pool allows, in words, for a refusal's message. */
export function limitText(limits: PoolLimits, held: boolean): string {
  const lease = `spec.maxLeaseDuration ${limits.maxLeaseText}, counted from binding`;
  return held && limits.maxHoldText
    ? `${lease}, or spec.maxHoldDuration ${limits.maxHoldText} counted from when the lease was first held`
    : lease;
}
