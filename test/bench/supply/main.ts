// The replayed CI week (`npm run bench:supply`, docs/supply-benchmark.md): a generated week of
// lease arrivals through each pool under today's static warm spares (swept) and the adaptive
// policy, on simulated time. Plain node, no control plane. The last line is one JSON object.
import { writeFileSync } from 'node:fs';
import { generateCiWeek, WEEK_SECONDS } from '../../support/supply/ci-week.js';
import { simulatePool, type SimPool } from '../../support/supply/pool-simulation.js';
import {
  adaptivePolicy,
  staticPolicy,
  trainedHistory,
  type SizingPolicy,
} from '../../support/supply/sizing-policy.js';
import { formatReplayReport, readReplayReport } from '../../support/supply/replay-report.js';
import { combine, type SupplyFigures } from '../../support/supply/supply-figures.js';
import { TOPOLOGY_TIMES } from '../../support/supply/topology-times.js';
import { formatTrace, type TraceLine } from '../../support/supply/trace.js';

/** The measured week's seed; `-- --seed N` measures another. */
const WEEK_SEED = seedArgument() ?? 33;
/** The weeks the adaptive pool learned from before the measured one: other seeds, same shape. */
const TRAINING_SEEDS = [1001, 1002, 1003];
const TARGET_P95_SECONDS = 60;
const POOLS: SimPool[] = [
  { name: 'crc-pool', topology: 'crc', minSize: 0, maxSize: 80 },
  { name: 'hcp-pool', topology: 'hcp', minSize: 0, maxSize: 40 },
];
/** The policy with its defaults (targetRunOutPercent 5, scaleDownDelay 15m). */
const AUTOSCALING = { minSpares: 1, maxSpares: 30 };
const HIBERNATION = { runningSpares: 1, hibernateAfterSeconds: 10 * 60 };

interface Row {
  policy: string;
  figures: SupplyFigures;
}

function simulate(trace: readonly TraceLine[], pool: SimPool, policy: SizingPolicy): SupplyFigures {
  return simulatePool({
    pool,
    policy,
    trace,
    weekSeconds: WEEK_SECONDS,
    seed: WEEK_SEED + pool.name.length,
  });
}

/**
 * The smallest static warmSpares whose p95 wait reaches the target, per pool: a binary search,
 * since more spares never lengthen the wait of the same week.
 */
function bestStatic(
  trace: readonly TraceLine[],
  pool: SimPool,
): { warmSpares: number; figures: SupplyFigures } {
  const run = (warmSpares: number): SupplyFigures =>
    simulate(trace, pool, staticPolicy(warmSpares));
  let low = 0;
  let high = pool.maxSize;
  let best = { warmSpares: high, figures: run(high) };
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const figures = run(middle);
    if (figures.p95WaitSeconds <= TARGET_P95_SECONDS) {
      best = { warmSpares: middle, figures };
      high = middle;
    } else low = middle + 1;
  }
  return best;
}

function adaptive(
  trace: readonly TraceLine[],
  pool: SimPool,
  options: { trained: boolean; hibernation: boolean },
): SupplyFigures {
  const times = TOPOLOGY_TIMES[pool.topology];
  const history = options.trained
    ? trainedHistory(
        TRAINING_SEEDS.map((seed) => generateCiWeek(seed)),
        pool.name,
      )
    : undefined;
  const policy = adaptivePolicy({
    spec: AUTOSCALING,
    leadTimeSeconds: times.provision.medianSeconds,
    resume: options.hibernation
      ? { seconds: times.resume.p95Seconds, floor: HIBERNATION.runningSpares }
      : undefined,
    history,
  });
  const simPool = options.hibernation ? { ...pool, hibernation: HIBERNATION } : pool;
  return simulate(trace, simPool, policy);
}

function table(rows: readonly Row[]): string {
  const head = [
    'policy',
    'leases',
    'p50 s',
    'p95 s',
    'max s',
    'idle h',
    'hibern. h',
    'prov. h',
    'peak',
    'maxSize hits',
  ];
  const lines = rows.map(({ policy, figures: f }) => [
    policy,
    String(f.leases),
    f.p50WaitSeconds.toFixed(0),
    f.p95WaitSeconds.toFixed(0),
    f.maxWaitSeconds.toFixed(0),
    f.idleSpareHours.toFixed(1),
    f.hibernatedSpareHours.toFixed(1),
    f.provisioningHours.toFixed(1),
    String(f.peakInstances),
    String(f.maxSizeHits),
  ]);
  const cells = [head, ...lines];
  const widths = head.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  const row = (r: string[]): string =>
    `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  return [row(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(row)].join(
    '\n',
  );
}

function main(): void {
  const started = performance.now();
  const trace = generateCiWeek(WEEK_SEED);
  const traceOut = process.argv.indexOf('--write-trace');
  if (traceOut > 0 && process.argv[traceOut + 1])
    writeFileSync(process.argv[traceOut + 1]!, formatTrace(trace) + '\n');
  const statics = POOLS.map((pool) => ({ pool, ...bestStatic(trace, pool) }));
  const perPool = (f: (pool: SimPool) => SupplyFigures): SupplyFigures => combine(POOLS.map(f));
  const staticAll = combine(statics.map((s) => s.figures));
  const adaptiveAll = perPool((pool) =>
    adaptive(trace, pool, { trained: true, hibernation: false }),
  );
  const hibernatedAll = perPool((pool) =>
    adaptive(trace, pool, { trained: true, hibernation: true }),
  );
  const coldAll = perPool((pool) => adaptive(trace, pool, { trained: false, hibernation: false }));
  const spares = statics.map((s) => `${s.pool.name}=${s.warmSpares}`).join(' ');
  const rows: Row[] = [
    ...statics.map((s) => ({
      policy: `static ${s.pool.name} warmSpares=${s.warmSpares}`,
      figures: s.figures,
    })),
    { policy: `static best (${spares})`, figures: staticAll },
    { policy: 'adaptive, 3 weeks learned', figures: adaptiveAll },
    { policy: 'adaptive + hibernation', figures: hibernatedAll },
    { policy: 'adaptive, cold start', figures: coldAll },
  ];
  const ratio = adaptiveAll.idleSpareHours / staticAll.idleSpareHours;
  // The last replay on the real operator (npm run bench:supply:replay), if it replayed this week.
  const replay = readReplayReport(process.cwd(), WEEK_SEED);
  const met = adaptiveAll.p95WaitSeconds <= TARGET_P95_SECONDS && ratio <= 0.5;
  process.stdout.write(
    [
      `Replayed CI week (seed ${WEEK_SEED}): ${trace.length} lease arrivals over ${POOLS.length} pools`,
      table(rows),
      `Target: p95 wait ≤ ${TARGET_P95_SECONDS} s with at most half the idle running spare-hours of the best static pool: ` +
        `adaptive p95 ${adaptiveAll.p95WaitSeconds.toFixed(0)} s, idle ${(ratio * 100).toFixed(0)}% of static — ${met ? 'met' : 'NOT met'}`,
      replay
        ? formatReplayReport(replay)
        : 'Replay: none for this week yet (npm run bench:supply:replay)',
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
      '',
    ].join('\n'),
  );
  const result = {
    static: {
      warmSpares: statics.reduce((n, s) => n + s.warmSpares, 0),
      warmSparesByPool: Object.fromEntries(statics.map((s) => [s.pool.name, s.warmSpares])),
      p95WaitSeconds: round(staticAll.p95WaitSeconds),
      idleSpareHours: round(staticAll.idleSpareHours),
    },
    adaptive: {
      p95WaitSeconds: round(adaptiveAll.p95WaitSeconds),
      idleSpareHours: round(adaptiveAll.idleSpareHours),
      hibernatedSpareHours: round(adaptiveAll.hibernatedSpareHours),
    },
    adaptiveWithHibernation: {
      p95WaitSeconds: round(hibernatedAll.p95WaitSeconds),
      idleSpareHours: round(hibernatedAll.idleSpareHours),
      hibernatedSpareHours: round(hibernatedAll.hibernatedSpareHours),
    },
    replay: replay
      ? {
          agreesWithinPercent: round(replay.agreement.agreesWithinPercent),
          tolerancePercent: replay.agreement.tolerancePercent,
          withinTolerance: replay.agreement.withinTolerance,
          pool: replay.pool,
          fromSeconds: replay.fromSeconds,
          durationSeconds: replay.durationSeconds,
          compression: replay.compression,
        }
      : { agreesWithinPercent: null },
    idleRatio: round(ratio),
    targetMet: met,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

function seedArgument(): number | undefined {
  const index = process.argv.indexOf('--seed');
  const value = index > 0 ? Number(process.argv[index + 1]) : NaN;
  return Number.isInteger(value) ? value : undefined;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

main();
