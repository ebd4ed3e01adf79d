import { formatGoDuration } from '../../../../client/api/duration.js';
import type { AutoscalingPolicy } from './autoscaling-spec.js';
import { peakLearnedRate, recentRate, type DemandHistory } from './demand-history.js';
import { poissonQuantile } from './poisson-quantile.js';
import { slotLabel } from './week-slots.js';

/** What the last decision left: the spares asked for, and since when they were last raised or stepped. */
export interface ScaleState {
  spares: number;
  heldSince: number;
}

export interface SparesInput {
  now: number;
  history: DemandHistory;
  policy: AutoscalingPolicy;
  /** How long a new instance takes to become Ready, in ms: what a spare asked for now waits. */
  leadTimeMs: number;
  /** The pool's bounds; its leased instances take room under maxSize and count toward minSize. */
  pool: { minSize?: number; maxSize: number; leased: number };
  previous?: ScaleState;
}

export interface SparesDecision {
  spares: number;
  /** One line for the pool's status and Event: the numbers the decision came from. */
  reason: string;
  state: ScaleState;
  /** The arrival rate planned for, per minute. */
  ratePerMinute: number;
}

/**
 * The spares a pool asks for (docs/reference/kinds.md#adaptive-warm-spares): the leases expected
 * within one lead time (Little's law: rate × lead time) plus the Poisson margin that keeps the
 * chance of running out below the target. The rate is the higher of the recent one and the one
 * learned for the coming two lead times, so a ramp the history knows is met before it starts.
 * Up at once; down only after scaleDownDelay, halfway each time; never outside the bounds.
 */
export function desiredSpares(input: SparesInput): SparesDecision {
  const { now, history, policy, leadTimeMs, pool } = input;
  const recent = recentRate(history, now);
  const learned = peakLearnedRate(history, now, now + 2 * leadTimeMs);
  const fromHistory = learned !== undefined && learned.rate > recent;
  const rate = fromHistory ? learned.rate : recent;
  const leadMinutes = leadTimeMs / 60_000;
  const mean = rate * leadMinutes;
  const target = poissonQuantile(mean, policy.coverage);
  const low = Math.max(policy.minSpares, (pool.minSize ?? 0) - pool.leased, 0);
  const high = Math.max(0, Math.min(policy.maxSpares, pool.maxSize - pool.leased));
  const bounded = clamp(target, low, high);
  const { spares, state, held } = scale(bounded, input, low, high);
  const source = fromHistory ? `expected at ${slotLabel(learned.slot)}` : 'lately';
  const margin = target - Math.ceil(mean);
  const parts = [
    `${spares} spares: ${rate.toFixed(2)} leases/min ${source} × ${round(leadMinutes)} min provisioning`,
    margin > 0 ? `+${margin} for bursts (${round(100 - policy.coverage * 100)}% run-out)` : '',
    bound(target, low, high, input),
    held
      ? `held until ${new Date(state.heldSince + policy.scaleDownDelayMs).toISOString()} (scaleDownDelay ${formatGoDuration(policy.scaleDownDelayMs)})`
      : '',
  ];
  return { spares, reason: parts.filter(Boolean).join(', '), state, ratePerMinute: rate };
}

function scale(
  bounded: number,
  input: SparesInput,
  low: number,
  high: number,
): { spares: number; state: ScaleState; held: boolean } {
  const { now, previous, policy } = input;
  const before = previous ? clamp(previous.spares, low, high) : bounded;
  if (bounded >= before)
    return { spares: bounded, state: { spares: bounded, heldSince: now }, held: false };
  const since = previous?.heldSince ?? now;
  if (now - since < policy.scaleDownDelayMs)
    return { spares: before, state: { spares: before, heldSince: since }, held: true };
  const stepped = before - Math.ceil((before - bounded) / 2);
  return { spares: stepped, state: { spares: stepped, heldSince: now }, held: stepped > bounded };
}

function bound(target: number, low: number, high: number, input: SparesInput): string {
  const { policy, pool } = input;
  if (target > high)
    return high < policy.maxSpares
      ? `capped by maxSize ${pool.maxSize} with ${pool.leased} leased`
      : `capped by maxSpares ${policy.maxSpares}`;
  if (target < low)
    return low > policy.minSpares
      ? `raised to minSize ${pool.minSize}`
      : `raised to minSpares ${low}`;
  return '';
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}
