import { SeededRandom } from '../../dev/support/seeded-random.js';
import type { StandInJob } from '../support/github-stand-in.js';

/** One workflow run of the fleet: its namespace and repository, its leases (one per leg) and its jobs. */
export interface FleetRun {
  namespace: string;
  repository: string;
  runId: number;
  /** The names of its leases, one per matrix leg; unique across namespaces. */
  leases: string[];
  /** Each leg's job and when it completes, in ms after the fleet's start. */
  jobs: { id: number; name: string; completesAtMs: number; conclusion: string }[];
}

export interface FleetShape {
  namespaces: readonly string[];
  runsPerNamespace: number;
  legsPerRun: number;
  /** Jobs complete at times drawn uniformly from this range (ms after the start). */
  completion: { earliestMs: number; latestMs: number };
  seed: number;
}

/**
 * The runs of a CI fleet: each namespace a team with a repository of its own and
 * `runsPerNamespace` runs of `legsPerRun` matrix legs, each leg a job that holds one lease and
 * completes at a drawn time (the same on every run of a seed).
 */
export function drawFleet(shape: FleetShape): FleetRun[] {
  const random = new SeededRandom(shape.seed);
  const { earliestMs, latestMs } = shape.completion;
  return shape.namespaces.flatMap((namespace, team) =>
    Array.from({ length: shape.runsPerNamespace }, (_, index) => {
      const runId = 7000 + team * shape.runsPerNamespace + index + 1;
      const legs = Array.from({ length: shape.legsPerRun }, (_, leg) => leg);
      return {
        namespace,
        repository: `acme/team-${team}`,
        runId,
        leases: legs.map((leg) => `run-${runId}-leg-${leg}`),
        jobs: legs.map((leg) => ({
          id: runId * 10 + leg,
          name: `e2e (leg ${leg})`,
          completesAtMs: earliestMs + Math.floor(random.next() * (latestMs - earliestMs)),
          conclusion: random.next() < 0.9 ? 'success' : 'failure',
        })),
      };
    }),
  );
}

/** The run's jobs as GitHub lists them `elapsedMs` after the start. */
export function jobsAt(run: FleetRun, elapsedMs: number): StandInJob[] {
  return run.jobs.map(({ id, name, completesAtMs, conclusion }) =>
    completesAtMs <= elapsedMs
      ? { id, name, status: 'completed', conclusion }
      : { id, name, status: 'in_progress', conclusion: null },
  );
}

/** How many of the run's jobs have not completed `elapsedMs` after the start. */
export function runningJobs(run: FleetRun, elapsedMs: number): number {
  return run.jobs.filter((job) => job.completesAtMs > elapsedMs).length;
}
