import type { Condition } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import type { PoolLimits, Refusal } from '../binding/lease-limits.js';
import { LimitReason, isHeldLabelled, latestDeadline, limitText } from '../binding/lease-limits.js';
import { LeaseReason } from './lease-status.js';
import { expiresAt } from './lease-ttl.js';

/** The deadline a bound lease keeps, and why a change of its TTL was not taken, if it was not. */
export interface ExpiryDecision {
  expiresAt?: string;
  refusal?: Refusal;
}

/**
 * status.expiresAt after a TTL change (docs/reference/kinds.md#lease-limits): the deadline
 * spec.ttl asks for when it is unchanged, earlier than the recorded one, or within the pool's
 * limits; otherwise the recorded deadline stays and the refusal says why. A limit set or lowered
 * after binding therefore applies from the next change of the TTL, and never shortens a lease.
 */
export function acceptedExpiry(
  lease: ClusterLease,
  limits: PoolLimits | undefined,
  heldAt: number | undefined,
): ExpiryDecision {
  const requested = expiresAt(lease);
  const recorded = lease.status?.expiresAt;
  if (requested === recorded || !limits) return { expiresAt: requested };
  const at = (text: string | undefined): number => (text ? Date.parse(text) : Infinity);
  const latest = latestDeadline(lease, limits, heldAt);
  if (at(requested) <= at(recorded) || latest === undefined || at(requested) <= latest)
    return { expiresAt: requested };
  const asked = requested ? `spec.ttl ${lease.spec.ttl} (until ${requested})` : 'removing spec.ttl';
  const kept = recorded ? `its deadline ${recorded}` : 'no deadline';
  return {
    expiresAt: recorded,
    refusal: {
      reason: LimitReason.TTLAbovePoolLimit,
      message: `${asked} reaches beyond what ClusterPool ${limits.pool} allows: ${limitText(limits, heldAt !== undefined && isHeldLabelled(lease))}; the change was not taken and the lease keeps ${kept}`,
    },
  };
}

/**
 * The TTLAccepted condition: False while a TTL change is refused; True again once spec.ttl is
 * back within what the pool allows. A lease whose TTL was never refused does not carry it.
 */
export function ttlAcceptedConditions(
  lease: ClusterLease,
  conditions: Condition[] | undefined,
  refusal: Refusal | undefined,
  now: number,
): Condition[] | undefined {
  const observedGeneration = lease.metadata?.generation;
  if (refusal)
    return setCondition(
      conditions,
      { type: 'TTLAccepted', status: 'False', ...refusal, observedGeneration },
      now,
    );
  if (!findCondition(conditions, 'TTLAccepted')) return conditions;
  return setCondition(
    conditions,
    {
      type: 'TTLAccepted',
      status: 'True',
      reason: LeaseReason.TTLWithinPoolLimit,
      message: 'spec.ttl is within what the pool allows',
      observedGeneration,
    },
    now,
  );
}
