import { parseGoDuration } from '../../../../client/api/duration.js';

/**
 * A pool's adaptive warm spares, as `spec.autoscaling` carries them
 * (docs/reference/kinds.md#adaptive-warm-spares). Durations are Go durations.
 */
export interface AutoscalingSpec {
  /** Fewest spares the pool keeps, whatever the demand. Default 0. */
  minSpares?: number;
  /** Most spares the policy asks for. */
  maxSpares: number;
  /**
   * The chance, in percent, that the spares run out before a new instance could be ready. Default 5:
   * about 95 of 100 leases find a spare.
   */
  targetRunOutPercent?: number;
  /** How long the target must stay below the spares before they step down. Default "15m". */
  scaleDownDelay?: string;
}

/** The spec with its defaults, in numbers. */
export interface AutoscalingPolicy {
  minSpares: number;
  maxSpares: number;
  /** 1 − targetRunOutPercent/100: the Poisson quantile the spares cover. */
  coverage: number;
  scaleDownDelayMs: number;
}

export const DEFAULT_RUN_OUT_PERCENT = 5;
export const DEFAULT_SCALE_DOWN_DELAY = '15m';

/**
 * The policy of a spec. The schema refuses bad values; this holds the same line for anything that
 * reaches it otherwise, naming the field, so that no input makes the policy ask for nonsense.
 */
export function autoscalingPolicy(spec: AutoscalingSpec): AutoscalingPolicy {
  const minSpares = spec.minSpares ?? 0;
  const { maxSpares } = spec;
  const percent = spec.targetRunOutPercent ?? DEFAULT_RUN_OUT_PERCENT;
  const delayText = spec.scaleDownDelay ?? DEFAULT_SCALE_DOWN_DELAY;
  const delay = parseGoDuration(delayText);
  if (!Number.isInteger(minSpares) || minSpares < 0)
    throw new Error(`spec.autoscaling.minSpares must be a whole number ≥ 0 (got ${minSpares})`);
  if (!Number.isInteger(maxSpares) || maxSpares < minSpares)
    throw new Error(
      `spec.autoscaling.maxSpares must be a whole number ≥ minSpares ${minSpares} (got ${maxSpares})`,
    );
  if (!(percent > 0 && percent < 100))
    throw new Error(
      `spec.autoscaling.targetRunOutPercent must be above 0 and below 100 (got ${percent})`,
    );
  if (delay === undefined)
    throw new Error(
      `spec.autoscaling.scaleDownDelay must be a duration such as 30m (got "${delayText}")`,
    );
  return { minSpares, maxSpares, coverage: 1 - percent / 100, scaleDownDelayMs: delay };
}
