/** One reading of the operator process (/proc/<pid>/status VmRSS, /proc/<pid>/fd). */
export interface ResourceSample {
  atMs: number;
  pid: number;
  rssBytes: number;
  fds: number;
}

/** The trend of one operator process over the second half of its life. */
export interface ResourceTrend {
  pid: number;
  fromMs: number;
  toMs: number;
  samples: number;
  rssMiBPerMinute: number;
  fdsPerMinute: number;
  /** Whether the process lived long enough to be judged (TREND_BOUNDS.minLifeMs). */
  judged: boolean;
}

/**
 * "Flat" (docs/soak.md#rss-and-open-handles): over the second half of each operator process's life
 * (a restart starts a new baseline), the least-squares slope of RSS stays below 5 MiB a minute and
 * that of open descriptors below 3 a minute. A process that lived less than ten minutes is shown
 * but not judged: its second half is still the warm-up of its caches and of V8's old generation,
 * which grows toward its limit for minutes under the soak's churn.
 */
export const TREND_BOUNDS = { rssMiBPerMinute: 5, fdsPerMinute: 3, minLifeMs: 600_000 } as const;

const MIB = 1024 * 1024;

/** The trend of each process in the samples, in the order the processes started. */
export function resourceTrends(samples: readonly ResourceSample[]): ResourceTrend[] {
  const byPid = new Map<number, ResourceSample[]>();
  for (const sample of samples) byPid.set(sample.pid, [...(byPid.get(sample.pid) ?? []), sample]);
  return [...byPid.entries()].map(([pid, life]) => {
    const fromMs = life[0]!.atMs;
    const toMs = life[life.length - 1]!.atMs;
    const half = life.filter((sample) => sample.atMs >= (fromMs + toMs) / 2);
    return {
      pid,
      fromMs,
      toMs,
      samples: half.length,
      rssMiBPerMinute: slopePerMinute(half, (s) => s.rssBytes / MIB),
      fdsPerMinute: slopePerMinute(half, (s) => s.fds),
      judged: toMs - fromMs >= TREND_BOUNDS.minLifeMs && half.length >= 3,
    };
  });
}

/** Whether a judged trend is above either bound. */
export function grows(trend: ResourceTrend): boolean {
  return (
    trend.judged &&
    (trend.rssMiBPerMinute > TREND_BOUNDS.rssMiBPerMinute ||
      trend.fdsPerMinute > TREND_BOUNDS.fdsPerMinute)
  );
}

/** Least-squares slope of value over time, per minute; 0 for fewer than two samples. */
export function slopePerMinute(
  samples: readonly ResourceSample[],
  value: (sample: ResourceSample) => number,
): number {
  if (samples.length < 2) return 0;
  const xs = samples.map((s) => s.atMs / 60_000);
  const ys = samples.map(value);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let numerator = 0;
  let denominator = 0;
  xs.forEach((x, i) => {
    numerator += (x - meanX) * (ys[i]! - meanY);
    denominator += (x - meanX) ** 2;
  });
  return denominator === 0 ? 0 : numerator / denominator;
}
