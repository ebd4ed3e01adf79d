import type { InstanceTimings } from '../../../timings.js';
import { DEFAULT_TIMINGS } from '../../../timings.js';

/*
 * The instance controllers' waits are the `instance` section of the operator's timings
 * (operator/timings.ts; `--timings instance.recheck=5s`, …), passed in where the controllers are
 * built. The engine imports them from here.
 */
export type { InstanceTimings };

/** The production waits, for an engine built without a configuration (unit tests). */
export const DEFAULT_INSTANCE_TIMINGS: Readonly<InstanceTimings> = Object.freeze({
  ...DEFAULT_TIMINGS.instance,
});
