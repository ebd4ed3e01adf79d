import type { FaultCounts } from './faults/fault-injector.js';
import type { Violation } from './invariant-checker.js';
import type { LeaseRecord } from './load-generator.js';
import type { ResourceTrend } from './resource-trend.js';
import { TREND_BOUNDS } from './resource-trend.js';
import type { FaultKind } from './soak-schedule.js';
import type { SoakSettings } from './soak-settings.js';

export interface SoakResult {
  settings: SoakSettings;
  startedAt: number;
  records: readonly LeaseRecord[];
  faults: Record<FaultKind, FaultCounts>;
  violations: readonly Violation[];
  trends: readonly ResourceTrend[];
  operatorStarts: number;
  /** How long the end took: the last leases, the pools' deletion and the leftover check. */
  drainMs: number;
  /** Set when the run could not finish (its environment failed); a violation of its own. */
  error?: string;
}

/** The report's one JSON object, the last line on stdout (docs/soak.md#the-report). */
export interface SoakSummary {
  seed: number;
  minutes: number;
  leases: number;
  served: number;
  outcomes: Record<string, number>;
  byTopology: Record<string, { leases: number; served: number }>;
  waits: { p50Ms: number; p90Ms: number; maxMs: number };
  faults: Record<string, number>;
  faultsSkipped: Record<string, number>;
  faultErrors: Record<string, number>;
  operator: { starts: number; trends: ResourceTrend[]; bounds: typeof TREND_BOUNDS };
  violations: { invariant: string; atSeconds: number; message: string }[];
  drainSeconds: number;
  error?: string;
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}

function count<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

export function summarize(result: SoakResult): SoakSummary {
  const created = result.records.filter((r) => r.created);
  const served = result.records.filter((r) => r.waitMs !== undefined);
  const waits = served.map((r) => r.waitMs!).sort((a, b) => a - b);
  const of = (field: keyof FaultCounts): Record<string, number> =>
    Object.fromEntries(
      Object.entries(result.faults).map(([kind, counts]) => [kind, counts[field]]),
    );
  const byTopology: SoakSummary['byTopology'] = {};
  for (const record of result.records) {
    const entry = (byTopology[record.plan.topology] ??= { leases: 0, served: 0 });
    entry.leases++;
    if (record.waitMs !== undefined) entry.served++;
  }
  return {
    seed: result.settings.seed,
    minutes: result.settings.minutes,
    leases: created.length,
    served: served.length,
    outcomes: count(result.records, (r) => r.outcome ?? 'unfinished'),
    byTopology,
    waits: {
      p50Ms: percentile(waits, 0.5),
      p90Ms: percentile(waits, 0.9),
      maxMs: waits[waits.length - 1] ?? 0,
    },
    faults: of('injected'),
    faultsSkipped: of('skipped'),
    faultErrors: of('errors'),
    operator: { starts: result.operatorStarts, trends: [...result.trends], bounds: TREND_BOUNDS },
    violations: result.violations.map((v) => ({
      invariant: v.invariant,
      atSeconds: Math.round((v.atMs - result.startedAt) / 1000),
      message: v.message,
    })),
    drainSeconds: Math.round(result.drainMs / 1000),
    ...(result.error ? { error: result.error } : {}),
  };
}

const row = (cells: readonly (string | number)[], widths: readonly number[]): string =>
  cells.map((cell, i) => String(cell).padEnd(widths[i]!)).join('  ');

/** The final table, for people (stderr). */
export function reportTable(summary: SoakSummary): string {
  const lines = [
    `Chaos soak: seed ${summary.seed}, ${summary.minutes} min, ${summary.leases} leases, ${summary.served} served`,
    `Waits for a cluster: p50 ${summary.waits.p50Ms} ms, p90 ${summary.waits.p90Ms} ms, max ${summary.waits.maxMs} ms`,
    `Leases by outcome: ${Object.entries(summary.outcomes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `Leases by topology: ${Object.entries(summary.byTopology)
      .map(([k, v]) => `${k} ${v.served}/${v.leases} served`)
      .join(', ')}`,
    '',
    row(['fault', 'injected', 'skipped', 'errors'], [20, 8, 7, 6]),
    ...Object.keys(summary.faults).map((kind) =>
      row(
        [kind, summary.faults[kind]!, summary.faultsSkipped[kind]!, summary.faultErrors[kind]!],
        [20, 8, 7, 6],
      ),
    ),
    '',
    `Operator processes: ${summary.operator.starts} (bounds: RSS ${TREND_BOUNDS.rssMiBPerMinute} MiB/min, fds ${TREND_BOUNDS.fdsPerMinute}/min over each second half of at least ${TREND_BOUNDS.minLifeMs / 60_000} min)`,
    row(['pid', 'lived s', 'RSS MiB/min', 'fds/min', 'judged'], [8, 8, 11, 8, 6]),
    ...summary.operator.trends.map((t) =>
      row(
        [
          t.pid,
          Math.round((t.toMs - t.fromMs) / 1000),
          t.rssMiBPerMinute.toFixed(2),
          t.fdsPerMinute.toFixed(2),
          t.judged ? 'yes' : 'no',
        ],
        [8, 8, 11, 8, 6],
      ),
    ),
    '',
    summary.violations.length === 0
      ? 'Violations: none'
      : `Violations (${summary.violations.length}):\n${summary.violations.map((v) => `  [${v.atSeconds}s] ${v.invariant}: ${v.message}`).join('\n')}`,
    ...(summary.error ? [`The run did not finish: ${summary.error}`] : []),
  ];
  return lines.join('\n');
}
