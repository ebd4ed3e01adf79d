import { afterAll, describe, expect, it } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import { gitHubReclaimSettings } from '../../operator/controllers/cirun/github-settings.js';
import type { GitHubReclaimSettings } from '../../operator/controllers/cirun/github-settings.js';
import { DEFAULT_WORKERS } from '../../operator/worker-counts.js';
import { controllerPasses } from './controller-passes.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { inBatches } from '../support/batches.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import type { StandInRequest } from '../support/github-stand-in.js';
import { GitHubStandIn } from '../support/github-stand-in.js';
import { useWorld } from '../support/world.js';
import { percentile, reportBench } from './bench-report.js';
import type { FleetRun } from './reclaim-fleet.js';
import { drawFleet, jobsAt, runningJobs } from './reclaim-fleet.js';
import type { Poll } from './reclaim-request-log.js';
import {
  requestsPerNamespacePerHour,
  requestsPerRunPerPoll,
  runOf,
} from './reclaim-request-log.js';

const world = useWorld({
  namespace: 'bench-reclaim',
  awaitNamespaceDeletion: true,
  namespaceDeleteTimeoutMs: 5 * 60_000,
});
const { ns } = world;
const NAMESPACES = 10;
/** The documented per-namespace run cap (--github-namespace-max-runs), filled in every namespace. */
const RUNS_PER_NAMESPACE = 20;
/** Matrix legs per run, each a job holding one lease. */
const LEGS = 5;
/** Polls after the first: 32 of 2m carry the test clock past an hour of polls. */
const POLLS = Number(process.env.BENCH_RECLAIM_POLLS ?? 32);
const SEED = Number(process.env.BENCH_SEED ?? 35);
const MINUTE = 60_000;
/** Real time the stand-in takes to answer, as a network would: requests sent at once overlap. */
const ANSWER_MS = 30;
/** Real time one poll may take: every run asked, every lease told. */
const POLL_DEADLINE_MS = 180_000;
const POOL = 'reclaim-pool';
const TOKEN = 'ghp_operator';
const BENCH_LABEL = 'test.guestcluster.opdev.io/bench';
/** At most four requests to GitHub at once (docs/reference/kinds.md#what-holds-reclaim-back). */
const MAX_IN_FLIGHT = 4;

/** A lease of one leg of the run, as the Action writes it, without a job id: it follows the attempt. */
function legLease(run: FleetRun, name: string): ClusterLease {
  const base = lease(run.namespace, name, POOL);
  base.metadata = {
    ...base.metadata,
    labels: { [BENCH_LABEL]: 'reclaim' },
    annotations: {
      [RUN_ANNOTATIONS.repository]: run.repository,
      [RUN_ANNOTATIONS.runId]: String(run.runId),
      [RUN_ANNOTATIONS.runAttempt]: '1',
      [RUN_ANNOTATIONS.job]: 'e2e',
    },
  };
  return base;
}

/** Binds the lease as the binding would, at `at` on the operator's clock, in whole seconds. */
async function bind(namespace: string, name: string, at: number): Promise<void> {
  await ns.api.patch(
    LEASES,
    { name, namespace, subresource: 'status' },
    {
      status: {
        phase: 'Bound',
        instanceRef: { name: `${POOL}-${name}`, uid: `uid-${name}` },
        topology: 'hcp',
        boundTime: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    },
  );
}

/** Until every run of `runs` has been asked about at or after `fromMs` (test clock). */
function askedAbout(runs: ReadonlySet<number>, fromMs: number) {
  const pending = new Set(runs);
  let cursor = 0;
  return (requests: readonly StandInRequest[]): boolean => {
    for (; cursor < requests.length; cursor++) {
      const request = requests[cursor]!;
      const run = runOf(request);
      if (run !== undefined && request.atMs >= fromMs) pending.delete(run);
    }
    return pending.size === 0;
  };
}

/**
 * Whether the leases say what GitHub answered `elapsedMs` after the start: those of a completed
 * run are gone; those of a running one say how many jobs have not completed, or are gone (released
 * too early, which the bench counts rather than waits for).
 */
function toldAt(live: readonly FleetRun[], elapsedMs: number) {
  return (leases: readonly ClusterLease[]): boolean => {
    const byName = new Map(leases.map((l) => [l.metadata!.name!, l]));
    return live.every((run) => {
      const running = runningJobs(run, elapsedMs);
      return run.leases.every((name) => {
        const found = byName.get(name);
        if (running === 0 || !found) return !found;
        const condition = findCondition(found.status?.conditions, 'RunCompleted');
        return (
          condition?.reason === 'AttemptInProgress' &&
          condition.message.startsWith(`${running} of ${LEGS} jobs of run ${run.runId} `)
        );
      });
    });
  };
}

/**
 * The GitHub reclaim at scale (issue: throughput): 1,000 Bound leases of 200 runs, five matrix
 * legs each, in ten namespaces of twenty runs (the documented per-namespace cap), asked about by
 * the cirun controller with the documented defaults (poll 2m, 20 runs and 1000 requests per
 * namespace per hour, one worker) on the test clock for over an hour of polls, while each leg's
 * job completes at a drawn time. The stand-in's request log says what the operator cost:
 * requests per run and poll, per namespace and hour, and at once; the leases say what it did.
 */
describe('GitHub reclaim of 1,000 leases', () => {
  const clock = new TestClock();
  let standIn: GitHubStandIn | undefined;
  afterAll(async () => {
    await world.stopOperators();
    await standIn?.stop();
  });

  it(`asks about ${NAMESPACES * RUNS_PER_NAMESPACE} runs of ${LEGS} leases over ${POLLS} polls`, async () => {
    const began = performance.now();
    const github = await standInGitHub();
    const fleet = await fleetInNamespaces(github.standIn);
    const manager = await world.startOperator({
      clock,
      controllers: ['cirun'],
      config: {
        workers: { cirun: DEFAULT_WORKERS.cirun! },
        operatorNamespace: ns.name,
        github: github.settings,
        // Every namespace of the world's, not only the first.
        watchNamespace: undefined,
      },
    });
    const legs = fleet.flatMap((run) => run.leases.map((name) => ({ run, name })));
    await inBatches(legs, 50, ({ run, name }) => ns.api.create(LEASES, legLease(run, name)));
    const created = performance.now();
    // Bound at one moment, as legs that lease from warm spares at once.
    const startMs = clock.now();
    await inBatches(legs, 50, ({ run, name }) => bind(run.namespace, name, startMs));
    const setUp = {
      creatingS: (created - began) / 1000,
      bindingS: (performance.now() - created) / 1000,
    };

    const outcome = await pollFleet(fleet, github, startMs);
    const passes = await controllerPasses(manager, 'cirun');
    await world.stopOperators();
    const left = (
      await ns.api.list<ClusterLease>(LEASES, { labelSelector: `${BENCH_LABEL}=reclaim` })
    ).items.map((l) => l.metadata!.name!);
    const running = new Set(outcome.live.flatMap((run) => run.leases));
    const notReleased = left.filter((name) => !running.has(name)).length;

    const requests = github.standIn.requests.filter((r) => runOf(r) !== undefined);
    const perPoll = requestsPerRunPerPoll(requests, outcome.polls);
    const namespaceOf = new Map(fleet.map((run) => [run.runId, run.namespace]));
    const perHour = [...requestsPerNamespacePerHour(requests, namespaceOf).values()];
    const mostPerHour = Math.max(...perHour);
    const model = outcome.polls.reduce((sum, p) => sum + p.live.size, 0);
    const budget = github.settings.requestsPerNamespacePerHour;
    const mostInFlight = github.standIn.mostInFlight;
    const simulatedMinutes = (clock.now() - startMs) / MINUTE;
    const seconds = outcome.seconds;
    const later = seconds.slice(1);
    await reportBench({
      benchmark: 'github-reclaim',
      description: `${legs.length} Bound leases of ${fleet.length} GitHub runs (${LEGS} legs each) in ${NAMESPACES} namespaces of ${RUNS_PER_NAMESPACE} runs, polled every ${github.settings.pollIntervalMs / MINUTE}m for ${simulatedMinutes.toFixed(0)} simulated minutes (seed ${SEED}); requests from the stand-in's log`,
      figures: {
        namespaces: NAMESPACES,
        runs: fleet.length,
        leases: legs.length,
        polls: outcome.polls.length,
        'simulated minutes': simulatedMinutes,
        'runs completed': fleet.length - outcome.live.length,
        'leases released': legs.length - left.length,
        'leases of completed runs not released': notReleased,
        'leases of running runs released': outcome.releasedEarly.length,
        'requests (the model: live runs x polls)': model,
        'requests made': requests.length,
        'answers 200': requests.filter((r) => r.status === 200).length,
        'answers 304': requests.filter((r) => r.status === 304).length,
        'other answers': requests.filter((r) => r.status !== 200 && r.status !== 304).length,
        'requests per run per poll, most': perPoll.most,
        'requests per run per poll, mean': perPoll.mean,
        'live runs of a poll not asked about': perPoll.unasked,
        'requests about runs without leases': perPoll.afterRelease,
        'requests per namespace per hour, most': mostPerHour,
        'requests per namespace per hour, least': Math.min(...perHour),
        'requests per namespace per hour, budget': budget,
        'requests in flight at once, most': mostInFlight,
        'controller passes per lease per poll': passes / (legs.length * outcome.polls.length),
        'real s: creating the leases': setUp.creatingS,
        'real s: binding them': setUp.bindingS,
        'real s: first poll, asking': seconds[0]!.ask,
        'real s: first poll, conditions written': seconds[0]!.tell,
        'real s: later polls, asking p50': percentile(
          later.map((p) => p.ask),
          50,
        ),
        'real s: later polls, telling p50': percentile(
          later.map((p) => p.tell),
          50,
        ),
        'real s: slowest poll': Math.max(...seconds.map((p) => p.ask + p.tell)),
        'real s: in all': (performance.now() - began) / 1000,
      },
      reference: { name: 'the documented model (live runs x polls)', value: model },
      measured: { name: 'requests made', value: requests.length },
      target: `within the documented budget (one request per run and poll, at most ${budget} per namespace per hour, ${MAX_IN_FLIGHT} at once), every completed run's leases released`,
      targetMet:
        requests.length <= model &&
        perPoll.most <= 1 &&
        perPoll.unasked + perPoll.afterRelease === 0 &&
        mostPerHour <= budget &&
        mostInFlight <= MAX_IN_FLIGHT &&
        notReleased + outcome.releasedEarly.length === 0,
    });
    expect({ notReleased, releasedEarly: outcome.releasedEarly }).toEqual({
      notReleased: 0,
      releasedEarly: [],
    });
    expect(perPoll).toMatchObject({ most: 1, unasked: 0, afterRelease: 0 });
    expect(mostPerHour).toBeLessThanOrEqual(budget);
    expect(mostInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
  });

  /** The stand-in, with the operator's token and a latency, and the documented default settings for it. */
  async function standInGitHub(): Promise<StandInGitHub> {
    const started = await GitHubStandIn.start(() => clock.now());
    standIn = started;
    started.acceptToken(TOKEN);
    started.answerAfter(ANSWER_MS);
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'github-token', namespace: ns.name },
      stringData: { token: TOKEN },
    });
    const problems: string[] = [];
    // Only what names the stand-in: the poll interval, the run cap and the budget are the defaults.
    const settings = gitHubReclaimSettings(
      {},
      {
        GITHUB_CREDENTIALS_SECRET: 'github-token',
        GITHUB_ALLOWED_REPOSITORIES: 'acme/*',
        GITHUB_API_URL: started.url,
        GITHUB_CA_FILE: 'stand-in-ca.crt',
      },
      problems,
      () => started.ca,
    );
    expect(problems).toEqual([]);
    return { standIn: started, settings: settings! };
  }

  /** The namespaces, a pool in each, and the fleet's runs with their jobs as GitHub lists them at the start. */
  async function fleetInNamespaces(github: GitHubStandIn): Promise<FleetRun[]> {
    const namespaces = [ns.name];
    for (let i = 1; i < NAMESPACES; i++)
      namespaces.push((await world.addNamespace(`${ns.name}-t${i}`)).name);
    await Promise.all(namespaces.map((name) => ns.api.create(POOLS, hcpPool(name, POOL))));
    const fleet = drawFleet({
      namespaces,
      runsPerNamespace: RUNS_PER_NAMESPACE,
      legsPerRun: LEGS,
      completion: { earliestMs: 3 * MINUTE, latestMs: 72 * MINUTE },
      seed: SEED,
    });
    for (const run of fleet) github.setJobs(run.repository, run.runId, 1, jobsAt(run, 0));
    return fleet;
  }

  /**
   * The polls: before each, GitHub's jobs as they are then; each ends once every run with leases
   * was asked about and every lease says what GitHub answered. Returns the polls, the runs still
   * running, the leases of running runs that went, and each poll's real time.
   */
  async function pollFleet(
    fleet: readonly FleetRun[],
    github: StandInGitHub,
    startMs: number,
  ): Promise<FleetOutcome> {
    const { pollIntervalMs } = github.settings;
    const polls: Poll[] = [];
    const seconds: { ask: number; tell: number }[] = [];
    const releasedEarly: string[] = [];
    let live = [...fleet];
    for (let poll = 0; poll <= POLLS; poll++) {
      const elapsedMs = poll * pollIntervalMs;
      if (poll > 0) {
        for (const run of live)
          github.standIn.setJobs(run.repository, run.runId, 1, jobsAt(run, elapsedMs));
        clock.advance(pollIntervalMs);
      }
      const pollStart = poll === 0 ? startMs : clock.now();
      const previous = polls.at(-1);
      if (previous) previous.endMs = pollStart;
      const asked = new Set(live.map((run) => run.runId));
      const t0 = performance.now();
      await github.standIn.requestsUntil(askedAbout(asked, pollStart), {
        timeoutMs: POLL_DEADLINE_MS,
        description: `poll ${poll}: a request about each of ${asked.size} runs`,
      });
      const t1 = performance.now();
      const leases = await waitForList<ClusterLease>(ns.kubeConfig, {
        type: LEASES,
        labelSelector: `${BENCH_LABEL}=reclaim`,
        until: toldAt(live, elapsedMs),
        timeoutMs: POLL_DEADLINE_MS,
        description: `poll ${poll}: the leases of ${live.length} runs telling their answer`,
      });
      seconds.push({ ask: (t1 - t0) / 1000, tell: (performance.now() - t1) / 1000 });
      polls.push({ startMs: pollStart, endMs: Infinity, live: asked });
      const present = new Set(leases.map((l) => l.metadata!.name!));
      live = live.filter((run) => runningJobs(run, elapsedMs) > 0);
      releasedEarly.push(...live.flatMap((run) => run.leases.filter((n) => !present.has(n))));
    }
    polls.at(-1)!.endMs = clock.now();
    return { polls, live, releasedEarly: [...new Set(releasedEarly)], seconds };
  }
});

interface StandInGitHub {
  standIn: GitHubStandIn;
  settings: GitHubReclaimSettings;
}

interface FleetOutcome {
  polls: Poll[];
  /** The runs still running after the last poll. */
  live: FleetRun[];
  /** Leases of runs still running that were released. */
  releasedEarly: string[];
  /** Real time of each poll: asking GitHub, then the leases telling the answers. */
  seconds: { ask: number; tell: number }[];
}
