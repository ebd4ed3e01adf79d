import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import { parseGoDuration } from '../api/duration.js';
import type { ClusterLease, ClusterPool } from '../api/resources.js';
import { LEASES, POOLS } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isConflict, isNotFound } from '../kube/api-error.js';
import { belongsTo } from './lease-owner.js';
import { deadlineText } from './extend-lease.js';
import type { ReleaseTarget } from './release-lease.js';
import { formatSeconds } from './wait-progress.js';

/** A lease kept after a failed job: until when, and why the hold may be shorter than asked. */
export interface Hold {
  lease: ClusterLease;
  /** The TTL written: the time since binding plus the hold. */
  ttl: string;
  /** When the operator releases it (RFC 3339). */
  until: string;
  holdMs: number;
  /** Set when the pool's limits made the hold shorter than asked. */
  shortenedBy?: string;
}

export type HoldOutcome = Hold | 'gone' | 'not-ours' | 'not-bound';

/**
 * What a hold beyond the pool's limits does: the Action's post shortens it (the job is over, a
 * shorter hold beats none); a person's `guestcluster lease hold` is refused, as an extension is.
 */
export type BeyondLimits = 'shorten' | 'refuse';

/** A hold longer than the pool allows, asked with `beyondLimits: 'refuse'`; nothing was written. */
export class HoldBeyondLimitError extends Error {
  override name = 'HoldBeyondLimitError';
}

/**
 * Keeps a failed job's lease for `holdMs` from now: labels it held and sets its TTL (which counts
 * from binding) to the time bound so far plus the hold, so that the operator releases it at the
 * end of the hold. The hold is capped by the pool's spec.maxHoldDuration and, beyond
 * spec.maxLeaseDuration, by the two together, as admission enforces them (when the pool cannot be
 * read, admission alone does); beyond them it is shortened or refused (`beyondLimits`). The write
 * carries the lease's resourceVersion.
 */
export async function holdLease(
  api: ApiClient,
  target: ReleaseTarget,
  holdMs: number,
  now = Date.now(),
  beyondLimits: BeyondLimits = 'shorten',
): Promise<HoldOutcome> {
  // The operator writes the lease's status often: a write between the read and the patch is
  // read again, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await holdOnce(api, target, { holdMs, now, beyondLimits });
    } catch (error) {
      if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
    }
  }
}

const CONFLICT_ATTEMPTS = 5;

async function holdOnce(
  api: ApiClient,
  target: ReleaseTarget,
  asked: { holdMs: number; now: number; beyondLimits: BeyondLimits },
): Promise<HoldOutcome> {
  const { holdMs, now } = asked;
  let lease: ClusterLease;
  try {
    lease = await api.get<ClusterLease>(LEASES, target.name, target.namespace);
  } catch (error) {
    if (isNotFound(error)) return 'gone';
    throw error;
  }
  const ours = target.uid
    ? lease.metadata?.uid === target.uid
    : !!target.run && belongsTo(lease, target.run);
  if (!ours) return 'not-ours';
  const boundTime = lease.status?.boundTime;
  if (!boundTime) return 'not-bound';
  const already = heldAlready(lease, boundTime, now);
  if (already) return already;
  const elapsedMs = Math.max(0, now - Date.parse(boundTime));
  const limits = await poolLimits(api, lease);
  const { hold, shortenedBy } = capHold(holdMs, elapsedMs, limits);
  if (shortenedBy && asked.beyondLimits === 'refuse')
    throw new HoldBeyondLimitError(
      `a hold of ${formatSeconds(Math.round(holdMs / 1000))} is beyond ${shortenedBy}; at most ${formatSeconds(Math.floor(hold / 1000))} can be held now`,
    );
  // Whole seconds, rounded up so that the hold is never shorter than what is reported, but never
  // above the pool's limit (admission would refuse it).
  const ttlSeconds = Math.min(
    Math.max(1, Math.ceil((elapsedMs + hold) / 1000)),
    Math.floor((limits.maxTtlMs ?? Infinity) / 1000),
  );
  const ttl = `${ttlSeconds}s`;
  const held = await api.patch<ClusterLease>(
    LEASES,
    { name: target.name, namespace: target.namespace },
    {
      metadata: {
        resourceVersion: lease.metadata!.resourceVersion,
        labels: { [LABEL_LEASE_HELD]: 'true' },
      },
      spec: { ttl },
    },
  );
  return {
    lease: held,
    ttl,
    until: deadlineText(boundTime, ttlSeconds * 1000)!,
    holdMs: hold,
    ...(shortenedBy ? { shortenedBy } : {}),
  };
}

/** The hold within the pool's limits, and which limit shortened it. */
export function capHold(
  holdMs: number,
  elapsedMs: number,
  limits: PoolLimits,
): { hold: number; shortenedBy?: string } {
  let hold = holdMs;
  let shortenedBy: string | undefined;
  if (limits.maxHoldMs !== undefined && hold > limits.maxHoldMs) {
    hold = limits.maxHoldMs;
    shortenedBy = `the pool's spec.maxHoldDuration (${limits.maxHoldText})`;
  }
  if (limits.maxTtlMs !== undefined && elapsedMs + hold > limits.maxTtlMs) {
    hold = Math.max(0, limits.maxTtlMs - elapsedMs);
    shortenedBy = `the pool's ${limits.maxTtlText}, counted from binding`;
  }
  return shortenedBy ? { hold, shortenedBy } : { hold };
}

/** A second post of the same job (a re-run of the step) keeps the hold it found, never lengthens it. */
function heldAlready(lease: ClusterLease, boundTime: string, now: number): Hold | undefined {
  if (lease.metadata?.labels?.[LABEL_LEASE_HELD] !== 'true') return undefined;
  const ttl = lease.spec.ttl ?? '0';
  const ttlMs = parseGoDuration(ttl) ?? 0;
  const until = deadlineText(boundTime, ttlMs);
  if (!until) return undefined;
  return { lease, ttl, until, holdMs: Math.max(0, Date.parse(until) - now) };
}

export interface PoolLimits {
  maxHoldMs?: number;
  maxHoldText?: string;
  /** The longest TTL of a held lease: maxLeaseDuration plus maxHoldDuration. */
  maxTtlMs?: number;
  maxTtlText?: string;
}

/** The pool's limits; none when it cannot be read (the CI identity's get on pools is optional). */
async function poolLimits(api: ApiClient, lease: ClusterLease): Promise<PoolLimits> {
  let pool: ClusterPool;
  try {
    pool = await api.get<ClusterPool>(POOLS, lease.spec.poolRef.name, lease.metadata?.namespace);
  } catch {
    return {};
  }
  const { maxLeaseDuration, maxHoldDuration } = pool.spec;
  const maxHoldMs = maxHoldDuration ? parseGoDuration(maxHoldDuration) : undefined;
  const maxLeaseMs = maxLeaseDuration ? parseGoDuration(maxLeaseDuration) : undefined;
  const limits: PoolLimits = {};
  if (maxHoldMs !== undefined) Object.assign(limits, { maxHoldMs, maxHoldText: maxHoldDuration });
  if (maxLeaseMs !== undefined)
    Object.assign(limits, {
      maxTtlMs: maxLeaseMs + (maxHoldMs ?? 0),
      maxTtlText: `spec.maxLeaseDuration ${maxLeaseDuration}${maxHoldDuration ? ` plus spec.maxHoldDuration ${maxHoldDuration}` : ''}`,
    });
  return limits;
}
