import type { ClusterPool } from '../../../client/api/resources.js';
import { generateCiWeek, WEEK_SECONDS } from './ci-week.js';
import { drawnTimes } from './drawn-times.js';
import { simulatePool } from './pool-simulation.js';
import { staticPolicy, type SizingPolicy } from './sizing-policy.js';
import type { SupplyFigures } from './supply-figures.js';
import { busiestSlice, type TraceSlice } from './trace-slice.js';

/**
 * A slice of the generated week replayed on the real operator and simulated alike
 * (docs/supply-benchmark.md#the-replay).
 */
export interface ReplayPlan {
  /** The week's seed; the draws of provisioning and teardown times follow from it too. */
  seed: number;
  slice: TraceSlice;
  /** Simulated seconds per real second: arrivals, holds, provisioning and teardown alike. */
  compression: number;
  pool: { name: string; minSize: number; maxSize: number; warmSpares: number };
  /**
   * More of the replayed pool's spec, and the simulation's policy for it: `spec.autoscaling` with
   * `adaptivePolicy` once the CRD has it. A static pool without them.
   */
  sizing?: { spec: Partial<ClusterPool['spec']>; policy: () => SizingPolicy };
}

/** The slice the benchmark replays: the busiest hour of `hcp-pool` in the week of `seed`. */
export function replayPlan(
  options: { seed?: number; compression?: number; warmSpares?: number } = {},
): ReplayPlan {
  const seed = options.seed ?? 33;
  const slice = busiestSlice(generateCiWeek(seed), 'hcp-pool', 3600, 1800, WEEK_SECONDS);
  return {
    seed,
    slice,
    compression: options.compression ?? 15,
    pool: { name: 'hcp-pool', minSize: 0, maxSize: 40, warmSpares: options.warmSpares ?? 9 },
  };
}

/** The provisioning and teardown times of the plan's instances, in the order they are needed. */
export function planTimes(plan: ReplayPlan): ReturnType<typeof drawnTimes> {
  return drawnTimes('hcp', plan.seed * 1000 + plan.slice.fromSeconds);
}

/** The policy simulation on the plan's slice, with the same drawn times as the replay. */
export function simulateSlice(plan: ReplayPlan): SupplyFigures {
  const { name, minSize, maxSize, warmSpares } = plan.pool;
  return simulatePool({
    pool: { name, topology: 'hcp', minSize, maxSize },
    policy: plan.sizing?.policy() ?? staticPolicy(warmSpares),
    trace: plan.slice.lines,
    weekSeconds: plan.slice.durationSeconds,
    seed: plan.seed,
    times: planTimes(plan),
  });
}
