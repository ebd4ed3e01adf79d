import type { OperatorConfig } from '../../../operator/config.js';
import { DEFAULT_TIMINGS } from '../../../operator/timings.js';
import { TEST_INSTANCE_TIMINGS } from '../test-timings.js';
import type { ReplayPlan } from './replay-plan.js';

/**
 * The replayed operator's waits: the tests' instance waits (the simulated platform answers in
 * milliseconds), and the pool's scale-down idle wait compressed like the slice, since the
 * simulation trims a spare two simulated minutes idle (docs/supply-benchmark.md#the-replay).
 */
export function replayOperatorConfig(plan: ReplayPlan): Partial<OperatorConfig> {
  return {
    timings: {
      ...DEFAULT_TIMINGS,
      instance: { ...DEFAULT_TIMINGS.instance, ...TEST_INSTANCE_TIMINGS },
      pool: {
        ...DEFAULT_TIMINGS.pool,
        scaleDownIdleMs: DEFAULT_TIMINGS.pool.scaleDownIdleMs / plan.compression,
      },
    },
  };
}
