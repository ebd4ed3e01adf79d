import { SeededRandom } from '../support/seeded-random.js';
import type { SoakSettings } from './soak-settings.js';

export const FAULT_KINDS = [
  'operator-sigkill',
  'apiserver-restart',
  'watch-delay',
  'vmi-fail',
  'datavolume-fail',
  'launcher-pod-delete',
  'node-drain',
  'github-break',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type Topology = 'crc' | 'hcp';
/**
 * How a lease ends: deleted by its job after its hold (as the Action's post step does), left to
 * its TTL, or released by the operator once the GitHub stand-in says its job completed.
 */
export type LeaseEnd = 'delete' | 'ttl' | 'github';

export interface PlannedLease {
  index: number;
  atMs: number;
  topology: Topology;
  end: LeaseEnd;
  /** How long the job holds the cluster once bound (for `ttl`: the TTL). */
  holdMs: number;
}

export interface PlannedFault {
  atMs: number;
  kind: FaultKind;
  /** How long the fault lasts, for the kinds that last (a delay, a drain, a GitHub outage). */
  durationMs: number;
  /** The seed of the fault's own choices (which pod, which node), made when it is injected. */
  seed: number;
}

export interface SoakSchedule {
  durationMs: number;
  leases: PlannedLease[];
  faults: PlannedFault[];
}

/** Leases arrive in the first 90% of the run, so the last ones are served before it ends. */
const ARRIVAL_SHARE = 0.9;
/** Faults come between 5% and 85% of the run: none before the first leases, none in the drain. */
const FAULT_WINDOW = [0.05, 0.85] as const;
/**
 * The faults that end the operator's process come only in the first half of the run (the first
 * round aside, which a short run needs whole): a SIGKILL, and an apiserver restart, which outlasts
 * the leader election's renew deadline so that the operator exits as it must. The last operator
 * process then lives at least half of the run: its RSS and descriptors are judged after its
 * caches warmed up (docs/soak.md#rss-and-open-handles).
 */
const PROCESS_ENDING_FAULTS: readonly FaultKind[] = ['operator-sigkill', 'apiserver-restart'];
const PROCESS_ENDING_FAULTS_END = 0.5;
/** The mean gap between faults in a long run. */
const FAULT_MEAN_GAP_MS = 30_000;
const CRC_SHARE = 0.4;
const ENDS: { item: LeaseEnd; weight: number }[] = [
  { item: 'delete', weight: 6 },
  { item: 'ttl', weight: 2 },
  { item: 'github', weight: 2 },
];
const HOLD_MS = [5_000, 45_000] as const;
/** TTLs in whole seconds; the expiry warning is at most a tenth of it. */
const TTL_MS = [60_000, 90_000] as const;
const FAULT_DURATION_MS: Record<FaultKind, readonly [number, number]> = {
  'operator-sigkill': [0, 0],
  'apiserver-restart': [0, 0],
  'watch-delay': [2_000, 8_000],
  'vmi-fail': [0, 0],
  'datavolume-fail': [0, 0],
  'launcher-pod-delete': [0, 0],
  'node-drain': [15_000, 45_000],
  'github-break': [20_000, 60_000],
};
/** Killing the operator costs a leader-election handover each time: rarer than the others. */
const FAULT_WEIGHTS: Record<FaultKind, number> = {
  'operator-sigkill': 1,
  'apiserver-restart': 1,
  'watch-delay': 2,
  'vmi-fail': 2,
  'datavolume-fail': 2,
  'launcher-pod-delete': 2,
  'node-drain': 1,
  'github-break': 1,
};

/**
 * Every random choice of a run made up front from its seed: when each lease comes, its topology,
 * how it ends and how long it is held; when each fault comes and how long it lasts. The first
 * faults are every kind once, in a random order, so even a short run meets each kind.
 */
export function soakSchedule(settings: SoakSettings): SoakSchedule {
  const durationMs = Math.round(settings.minutes * 60_000);
  const random = new SeededRandom(settings.seed);
  return {
    durationMs,
    leases: planLeases(random, settings.leases, durationMs),
    faults: planFaults(random, durationMs),
  };
}

function planLeases(random: SeededRandom, count: number, durationMs: number): PlannedLease[] {
  // Poisson arrivals, scaled so that exactly `count` land in the arrival window.
  const gaps = Array.from({ length: count }, () => random.exponential(1));
  const total = gaps.reduce((sum, gap) => sum + gap, 0);
  const scale = (durationMs * ARRIVAL_SHARE) / total;
  let at = 0;
  return gaps.map((gap, index) => {
    const atMs = Math.round(at * scale);
    at += gap;
    const end = random.weighted(ENDS);
    const [min, max] = end === 'ttl' ? TTL_MS : HOLD_MS;
    const holdMs =
      end === 'ttl'
        ? Math.round(random.between(min, max) / 1000) * 1000
        : Math.round(random.between(min, max));
    return { index, atMs, topology: random.next() < CRC_SHARE ? 'crc' : 'hcp', end, holdMs };
  });
}

function planFaults(random: SeededRandom, durationMs: number): PlannedFault[] {
  const [start, end] = FAULT_WINDOW.map((share) => share * durationMs) as [number, number];
  const meanGap = Math.min(FAULT_MEAN_GAP_MS, (end - start) / FAULT_KINDS.length);
  const killEnd = PROCESS_ENDING_FAULTS_END * durationMs;
  const firstRound = shuffle(random, [...FAULT_KINDS]);
  const weighted = FAULT_KINDS.map((item) => ({ item, weight: FAULT_WEIGHTS[item] }));
  const withoutKills = weighted.filter(({ item }) => !PROCESS_ENDING_FAULTS.includes(item));
  const faults: PlannedFault[] = [];
  for (let at = start + random.exponential(meanGap); at < end; at += random.exponential(meanGap)) {
    const kind = firstRound.shift() ?? random.weighted(at < killEnd ? weighted : withoutKills);
    const [min, max] = FAULT_DURATION_MS[kind];
    faults.push({
      atMs: Math.round(at),
      kind,
      durationMs: Math.round(random.between(min, max)),
      seed: random.integer(0, 2 ** 32 - 1),
    });
  }
  return faults;
}

function shuffle<T>(random: SeededRandom, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.integer(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
