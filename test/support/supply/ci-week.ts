import { SeededRandom } from '../../../dev/support/seeded-random.js';
import type { Topology } from './topology-times.js';
import type { TraceLine } from './trace.js';

/** One pool's demand in the generated week (docs/supply-benchmark.md#the-generated-week). */
export interface PoolDemand {
  pool: string;
  version: string;
  topology: Topology;
  /** Lease arrivals per minute at the weekday business-hours peak. */
  peakPerMinute: number;
  /** Merge-queue bursts per weekday, on average, between 09:00 and 17:00. */
  burstsPerWeekday: number;
  /** Leases in one burst, all within one minute: the fewest and the most. */
  burstSize: [number, number];
}

export const CI_WEEK_POOLS: readonly PoolDemand[] = [
  {
    pool: 'crc-pool',
    version: '4.16',
    topology: 'crc',
    peakPerMinute: 0.8,
    burstsPerWeekday: 2.5,
    burstSize: [6, 14],
  },
  {
    pool: 'hcp-pool',
    version: '4.17',
    topology: 'hcp',
    peakPerMinute: 0.25,
    burstsPerWeekday: 1.5,
    burstSize: [3, 6],
  },
];

export const WEEK_SECONDS = 7 * 24 * 3600;
/** Job hold times: log-normal, median 25 min, 95th percentile 90 min, within 2 min and 6 h. */
export const HOLD = { medianSeconds: 25 * 60, p95Seconds: 90 * 60, min: 120, max: 6 * 3600 };

/** The share of the peak rate at a minute of the week (Monday 00:00 is minute 0). */
export function demandShape(minuteOfWeek: number): number {
  const day = Math.floor(minuteOfWeek / 1440);
  const hour = (minuteOfWeek % 1440) / 60;
  if (day >= 5) return hour >= 10 && hour < 18 ? 0.04 : 0.02;
  if (hour < 7 || hour >= 23) return 0.04;
  if (hour < 8) return 0.3;
  if (hour < 12) return 1;
  if (hour < 13) return 0.7;
  if (hour < 18) return day === 4 && hour >= 15 ? 0.6 : 1;
  return hour < 20 ? 0.35 : 0.12;
}

/** A realistic CI week from a seed: Poisson arrivals on the weekly shape, plus bursts. */
export function generateCiWeek(
  seed: number,
  pools: readonly PoolDemand[] = CI_WEEK_POOLS,
): TraceLine[] {
  const random = new SeededRandom(seed);
  const lines: TraceLine[] = [];
  const hold = (): number =>
    Math.round(
      Math.min(HOLD.max, Math.max(HOLD.min, random.logNormal(HOLD.medianSeconds, HOLD.p95Seconds))),
    );
  for (const demand of pools) {
    const lease = (at: number): TraceLine => ({
      at: Math.round(at),
      pool: demand.pool,
      version: demand.version,
      holdSeconds: hold(),
    });
    for (let minute = 0; minute < WEEK_SECONDS / 60; minute++) {
      const count = random.poisson(demand.peakPerMinute * demandShape(minute));
      for (let i = 0; i < count; i++) lines.push(lease((minute + random.next()) * 60));
    }
    for (let day = 0; day < 5; day++) {
      const bursts = random.poisson(demand.burstsPerWeekday);
      for (let b = 0; b < bursts; b++) {
        const start = day * 86_400 + 9 * 3600 + random.next() * 8 * 3600;
        const size = random.integer(...demand.burstSize);
        for (let i = 0; i < size; i++) lines.push(lease(start + random.next() * 60));
      }
    }
  }
  return lines.sort((a, b) => a.at - b.at);
}
