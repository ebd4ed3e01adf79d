import type { TraceLine } from './trace.js';

/** A window of a week's trace, for one pool (docs/supply-benchmark.md#the-replay). */
export interface TraceSlice {
  pool: string;
  /** Seconds from the week's start. */
  fromSeconds: number;
  durationSeconds: number;
  /** The window's arrivals, `at` counted from the window's start. */
  lines: TraceLine[];
}

/** The arrivals of `pool` in [from, from + duration), re-based to the window's start. */
export function sliceTrace(
  trace: readonly TraceLine[],
  pool: string,
  fromSeconds: number,
  durationSeconds: number,
): TraceSlice {
  const lines = trace
    .filter((l) => l.pool === pool && l.at >= fromSeconds && l.at < fromSeconds + durationSeconds)
    .map((l) => ({ ...l, at: l.at - fromSeconds }));
  return { pool, fromSeconds, durationSeconds, lines };
}

/**
 * The window of `durationSeconds` starting on a multiple of `stepSeconds` with the most arrivals
 * of `pool` (the first of equals).
 */
export function busiestSlice(
  trace: readonly TraceLine[],
  pool: string,
  durationSeconds: number,
  stepSeconds: number,
  weekSeconds: number,
): TraceSlice {
  let best = sliceTrace(trace, pool, 0, durationSeconds);
  for (let from = stepSeconds; from + durationSeconds <= weekSeconds; from += stepSeconds) {
    const slice = sliceTrace(trace, pool, from, durationSeconds);
    if (slice.lines.length > best.lines.length) best = slice;
  }
  return best;
}
