import type { SeededRandom } from '../../../dev/support/seeded-random.js';

export type Topology = 'crc' | 'hcp';

/** A log-normal duration, by its median and 95th percentile, in seconds. */
export interface Duration {
  medianSeconds: number;
  p95Seconds: number;
}

/**
 * How long an instance of each topology takes to provision, to resume from hibernation and to be
 * torn down. Where each figure comes from is in docs/supply-benchmark.md#distributions; most are
 * estimates, stated as such there.
 */
export const TOPOLOGY_TIMES: Record<
  Topology,
  Record<'provision' | 'resume' | 'teardown', Duration>
> = {
  crc: {
    provision: { medianSeconds: 8 * 60, p95Seconds: 12 * 60 },
    resume: { medianSeconds: 3 * 60, p95Seconds: 5 * 60 },
    teardown: { medianSeconds: 60, p95Seconds: 2 * 60 },
  },
  hcp: {
    provision: { medianSeconds: 15 * 60, p95Seconds: 22 * 60 },
    resume: { medianSeconds: 5 * 60, p95Seconds: 8 * 60 },
    teardown: { medianSeconds: 5 * 60, p95Seconds: 9 * 60 },
  },
};

export function draw(random: SeededRandom, duration: Duration): number {
  return random.logNormal(duration.medianSeconds, duration.p95Seconds);
}
