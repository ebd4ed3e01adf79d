import { poissonQuantile } from './poisson-quantile.js';

/**
 * With hibernated spares, how many of `spares` should run (docs/reference/kinds.md#adaptive-warm-spares):
 * a taken running spare is replaced by resuming a hibernated one, so the running ones need to cover
 * only the leases of one resume time, as the spares cover those of one provisioning time. Never
 * fewer than the pool's `floor` (`spec.hibernation.runningSpares`), never more than the spares.
 */
export function desiredRunningSpares(
  ratePerMinute: number,
  resumeTimeMs: number,
  coverage: number,
  bounds: { floor: number; spares: number },
): number {
  const target = poissonQuantile((ratePerMinute * resumeTimeMs) / 60_000, coverage);
  return Math.min(Math.max(target, bounds.floor), bounds.spares);
}
