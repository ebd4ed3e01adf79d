import {
  autoscalingPolicy,
  type AutoscalingPolicy,
  type AutoscalingSpec,
} from '../../../operator/controllers/clusterpool/autoscaling/autoscaling-spec.js';
import {
  advanceHistory,
  emptyHistory,
  recordArrival,
  type DemandHistory,
} from '../../../operator/controllers/clusterpool/autoscaling/demand-history.js';
import {
  desiredSpares,
  type ScaleState,
} from '../../../operator/controllers/clusterpool/autoscaling/desired-spares.js';
import { desiredRunningSpares } from '../../../operator/controllers/clusterpool/autoscaling/running-spares.js';
import type { TraceLine } from './trace.js';

/** Simulated second 0 is this Monday, 00:00 UTC. */
export const WEEK_EPOCH_MS = Date.UTC(2026, 0, 5);
const WEEK_MS = 7 * 24 * 3600 * 1000;

export interface PoolView {
  leased: number;
  minSize: number;
  maxSize: number;
}

/** What a pool asks for: spares, and with hibernation how many of them run. */
export interface SizingDecision {
  spares: number;
  running?: number;
  reason?: string;
}

export interface SizingPolicy {
  readonly name: string;
  observeArrival(now: number): void;
  decide(now: number, pool: PoolView): SizingDecision;
}

/** Today's pool: `warmSpares` always (docs/reference/kinds.md#pool-accounting). */
export function staticPolicy(warmSpares: number, runningSpares?: number): SizingPolicy {
  return {
    name: `static warmSpares=${warmSpares}`,
    observeArrival: () => undefined,
    decide: () => ({ spares: warmSpares, running: runningSpares }),
  };
}

export interface AdaptiveOptions {
  spec: AutoscalingSpec;
  leadTimeSeconds: number;
  /** With hibernation: the resume time, and spec.hibernation.runningSpares as the floor. */
  resume?: { seconds: number; floor: number };
  history?: DemandHistory;
}

/** The product's adaptive policy (operator/controllers/clusterpool/autoscaling), on simulated time. */
export function adaptivePolicy(options: AdaptiveOptions): SizingPolicy {
  const policy: AutoscalingPolicy = autoscalingPolicy(options.spec);
  let history = options.history ?? emptyHistory(WEEK_EPOCH_MS);
  let state: ScaleState | undefined;
  return {
    name: options.resume ? 'adaptive + hibernation' : 'adaptive',
    observeArrival(now) {
      history = recordArrival(history, WEEK_EPOCH_MS + now * 1000);
    },
    decide(now, pool) {
      const at = WEEK_EPOCH_MS + now * 1000;
      history = advanceHistory(history, at);
      const decision = desiredSpares({
        now: at,
        history,
        policy,
        leadTimeMs: options.leadTimeSeconds * 1000,
        pool,
        previous: state,
      });
      state = decision.state;
      const { resume } = options;
      const running = resume
        ? desiredRunningSpares(decision.ratePerMinute, resume.seconds * 1000, policy.coverage, {
            floor: resume.floor,
            spares: decision.spares,
          })
        : undefined;
      return { spares: decision.spares, running, reason: decision.reason };
    },
  };
}

/**
 * A history that has seen `weeks` (the oldest first) of one pool's arrivals, ending at the
 * simulated week's start: what the pool would have learned before it.
 */
export function trainedHistory(
  weeks: readonly (readonly TraceLine[])[],
  pool: string,
): DemandHistory {
  const start = WEEK_EPOCH_MS - weeks.length * WEEK_MS;
  let history = emptyHistory(start);
  weeks.forEach((week, index) => {
    const offset = start + index * WEEK_MS;
    const arrivals = week.filter((l) => l.pool === pool);
    let next = 0;
    for (let minute = 0; minute < WEEK_MS / 60_000; minute += 5) {
      const until = offset + (minute + 5) * 60_000;
      while (next < arrivals.length && offset + arrivals[next]!.at * 1000 < until) {
        history = recordArrival(history, offset + arrivals[next]!.at * 1000);
        next += 1;
      }
      history = advanceHistory(history, until);
    }
  });
  return history;
}
