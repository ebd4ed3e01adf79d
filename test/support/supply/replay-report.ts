import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Agreement } from './replay-agreement.js';
import type { SupplyFigures } from './supply-figures.js';

/** Where the last replay's result is kept, for `npm run bench:supply` to read. */
export const REPLAY_RESULT_PATH = path.join('test', 'bench', 'results', 'supply-replay.json');

/** The last replay, as `npm run bench:supply:replay` writes it. */
export interface ReplayReport {
  seed: number;
  pool: string;
  warmSpares: number;
  /** The slice: seconds from the week's start, and its length. */
  fromSeconds: number;
  durationSeconds: number;
  compression: number;
  leases: number;
  simulated: SupplyFigures;
  replayed: SupplyFigures;
  agreement: Agreement;
  realSeconds: number;
  /**
   * The replayed instances' provisioning (seen → Ready) and teardown (deleting → gone), p50 and
   * p95 in simulated seconds, beside the distributions drawn from.
   */
  instanceSeconds: Record<
    'provision' | 'teardown',
    { p50: number; p95: number; drawnMedian: number; drawnP95: number; count: number }
  >;
}

/** The figures with their waits sorted and rounded to a tenth of a second, for the report. */
export function reportedFigures(figures: SupplyFigures): SupplyFigures {
  const waits = [...figures.waits].sort((a, b) => a - b).map((w) => Math.round(w * 10) / 10);
  return { ...figures, waits };
}

/** The last replay's report under `root`, if there is one for this week's seed. */
export function readReplayReport(root: string, seed: number): ReplayReport | undefined {
  const file = path.join(root, REPLAY_RESULT_PATH);
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, 'utf8')) as ReplayReport;
  return report.seed === seed ? report : undefined;
}

/** The replay beside the simulation, one row per compared figure. */
export function formatReplayReport(report: ReplayReport): string {
  const hour = (s: number): string =>
    `${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
  const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][
    Math.floor(report.fromSeconds / 86_400)
  ];
  const rows = report.agreement.figures.map(
    (f) =>
      `  ${f.figure.padEnd(16)} simulated ${f.simulated.toFixed(1).padStart(8)}  replayed ${f.replayed.toFixed(1).padStart(8)}  ${f.percent.toFixed(1).padStart(6)}%`,
  );
  const { agreement } = report;
  const steps = (['provision', 'teardown'] as const).map((step) => {
    const s = report.instanceSeconds[step];
    return `  ${step.padEnd(16)} replayed p50 ${s.p50.toFixed(0)} s, p95 ${s.p95.toFixed(0)} s of ${s.count} (drawn from median ${s.drawnMedian} s, p95 ${s.drawnP95} s)`;
  });
  return [
    `Replay of ${report.pool} (seed ${report.seed}), ${day} ${hour(report.fromSeconds)} for ${report.durationSeconds / 60} min: ` +
      `${report.leases} leases, warmSpares ${report.warmSpares}, ${report.compression}× compressed, ${report.realSeconds.toFixed(0)} s on the real operator`,
    ...rows,
    ...steps,
    `  agrees within ${agreement.agreesWithinPercent.toFixed(1)}% (tolerance ${agreement.tolerancePercent}%: ${agreement.withinTolerance ? 'within' : 'NOT within'})`,
  ].join('\n');
}
