import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ANNOTATION_KEEP_AFTER_JOB, RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../operator/api/resources.js';
import { LEASES, SECRETS } from '../../operator/api/resources.js';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import type { GitHubReclaimSettings } from '../../operator/controllers/cirun/github-settings.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import { eventFor } from '../support/events.js';
import { GitHubStandIn } from '../support/github-stand-in.js';
import { lease } from './pool-fixtures.js';
import { TestClock } from './test-clock.js';

const world = useWorld({ namespace: 'cirun' });
const { ns } = world;
const MINUTE = 60_000;
const POLL = 10 * MINUTE;
/** Long enough that only the test clock, never real time, reaches a poll or a backoff. */
const BACKOFF = { baseMs: 30 * MINUTE, maxMs: 240 * MINUTE, jitter: 0 };
const HOLD = 'test.guestcluster.opdev.io/hold';
const REPO = 'acme/app';

describe('releasing leases whose GitHub job has completed', () => {
  const clock = new TestClock();
  let standIn: GitHubStandIn;
  let manager: Manager | undefined;

  const start = async (credentialsSecret: string): Promise<void> => {
    const github: GitHubReclaimSettings = {
      credentialsSecret,
      apiUrl: standIn.url,
      allowedRepositories: ['acme/*'],
      caCertificates: standIn.ca,
      pollIntervalMs: POLL,
      backoff: BACKOFF,
    };
    // One worker: keys are reconciled in the order they are queued, so a probe lease's pass
    // tells that every pass queued before it is done (see settled()). The test operator's watch
    // backoff is short: jumps of the test clock look like a silent watch to the informer's
    // watchdog, and the watch restarts at once.
    manager = await world.startOperator({
      clock,
      controllers: ['cirun'],
      config: { workersPerController: 1, operatorNamespace: ns.name, github },
    });
  };

  beforeAll(async () => {
    standIn = await GitHubStandIn.start(() => clock.now());
    standIn.acceptToken('ghp_operator');
    await ns.api.create(SECRETS, secret('github-token', { token: 'ghp_operator' }));
    await start('github-token');
  });
  afterAll(async () => {
    await manager?.stop();
    await standIn?.stop();
  });

  const runLease = (
    name: string,
    run: { repository?: string; runId: number; attempt?: number; jobId?: number },
    finalizers: string[] = [],
  ): ClusterLease => {
    const base = lease(ns.name, name, 'no-pool');
    base.metadata = {
      ...base.metadata,
      finalizers,
      annotations: {
        [RUN_ANNOTATIONS.repository]: run.repository ?? REPO,
        [RUN_ANNOTATIONS.runId]: String(run.runId),
        [RUN_ANNOTATIONS.runAttempt]: String(run.attempt ?? 1),
        [RUN_ANNOTATIONS.job]: 'e2e',
        ...(run.jobId ? { [RUN_ANNOTATIONS.jobId]: String(run.jobId) } : {}),
      },
    };
    return base;
  };
  /** Waits for the lease's RunCompleted condition to have `reason` (and `message`, when given). */
  const runCondition = (name: string, reason: string, message?: string) =>
    waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name,
      until: (l) => {
        const condition = findCondition(l?.status?.conditions, 'RunCompleted');
        return condition?.reason === reason && (!message || condition.message.includes(message));
      },
      description: `RunCompleted ${reason} ${message ?? ''} on ${name}`,
    }).then((l) => findCondition(l?.status?.conditions, 'RunCompleted'));
  const gone = (name: string) =>
    waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name,
      until: (l) => l === undefined,
      description: `lease ${name} to be released`,
    });
  const exists = async (name: string): Promise<boolean> =>
    !(await ns.api.get<ClusterLease>(LEASES, name, ns.name)).metadata?.deletionTimestamp;

  let probes = 0;
  /**
   * Waits until every pass queued so far is done: a lease naming a repository outside the allowed
   * list is answered without GitHub, after the keys queued before it (one worker, in order).
   */
  const settled = async (): Promise<void> => {
    const name = `probe-${++probes}`;
    await ns.api.create(LEASES, runLease(name, { repository: 'elsewhere/other', runId: 1 }));
    await runCondition(name, 'RepositoryNotAllowed');
    await ns.api.delete(LEASES, name, ns.name);
  };
  /**
   * Waits until the lease's condition gives `reason` for the run's `count`th request, and returns
   * how long after that request the condition says the next one goes out, and when.
   */
  const nextRequest = async (
    name: string,
    runId: number,
    count: number,
    reason: string,
  ): Promise<{ afterMs: number; atMs: number }> => {
    const answered = (await standIn.requestsFor(REPO, runId, count))[count - 1]!;
    const announced = (l?: ClusterLease): number => {
      const condition = findCondition(l?.status?.conditions, 'RunCompleted');
      const at = / at (\S+Z)$/.exec(condition?.message ?? '')?.[1];
      return condition?.reason === reason && at ? Date.parse(at) : NaN;
    };
    const told = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name,
      until: (l) => announced(l) > answered.atMs,
      description: `${name}'s RunCompleted ${reason} after request ${count}`,
    });
    return { afterMs: announced(told) - answered.atMs, atMs: announced(told) };
  };
  /**
   * After the run's `count`th request, the lease says `reason` and that the next request goes out
   * `waitMs` later (give or take two seconds of the test's own time); a minute before that, GitHub
   * has been asked nothing more and the lease is still there. Returns when the next request is due.
   */
  const waitsBeforeAsking = async (
    name: string,
    runId: number,
    count: number,
    reason: string,
    waitMs: number,
  ): Promise<number> => {
    const next = await nextRequest(name, runId, count, reason);
    expect(next.afterMs).toBeGreaterThanOrEqual(waitMs);
    expect(next.afterMs).toBeLessThan(waitMs + 2000);
    advanceTo(next.atMs - MINUTE);
    await settled();
    expect(standIn.jobRequests(REPO, runId)).toHaveLength(count);
    expect(await exists(name)).toBe(true);
    return next.atMs;
  };
  /** Moves the test clock to `at` (epoch ms). */
  const advanceTo = (at: number): void => clock.advance(at - clock.now());
  /**
   * Moves the test clock just past `at`, an announced time of the next request. The operator's
   * timer for it counts from the moment it was set, a moment of real time after `at` was
   * computed, so it is due a little after `at`: advancing to `at` exactly may leave it unfired.
   */
  const advancePast = (at: number): void => advanceTo(at + 1000);

  it('asks GitHub nothing about a repository outside the allowed list, and says so', async () => {
    await ns.api.create(LEASES, runLease('foreign', { repository: 'other/repo', runId: 900 }));
    const condition = await runCondition('foreign', 'RepositoryNotAllowed');
    expect(condition).toMatchObject({ status: 'Unknown' });
    expect(condition?.message).toContain('--github-allowed-repositories');
    expect(standIn.requests).toHaveLength(0);
    await ns.api.delete(LEASES, 'foreign', ns.name);
  });

  it('leaves alone a lease held after a failure or kept after its job', async () => {
    standIn.setJobs(REPO, 1008, 1, [
      { id: 81, name: 'e2e', status: 'completed', conclusion: 'failure' },
    ]);
    const held = runLease('held', { runId: 1008 });
    held.metadata!.labels = { [LABEL_LEASE_HELD]: 'true' };
    const kept = runLease('kept', { runId: 1008 });
    kept.metadata!.annotations![ANNOTATION_KEEP_AFTER_JOB] = 'true';
    await ns.api.create(LEASES, held);
    await ns.api.create(LEASES, kept);
    await settled();
    expect(await exists('held')).toBe(true);
    expect(await exists('kept')).toBe(true);
    expect(standIn.jobRequests(REPO, 1008)).toHaveLength(0);
    await ns.api.delete(LEASES, 'held', ns.name);
    await ns.api.delete(LEASES, 'kept', ns.name);
  });

  it("releases a completed job's lease, with a condition and an Event naming the run and its conclusion", async () => {
    standIn.setJobs(REPO, 1001, 1, [
      { id: 11, name: 'e2e', status: 'completed', conclusion: 'failure' },
      { id: 12, name: 'lint', status: 'in_progress', conclusion: null },
    ]);
    // The hold finalizer keeps the deleted lease readable, so that its condition can be seen.
    await ns.api.create(LEASES, runLease('done', { runId: 1001, jobId: 11 }, [HOLD]));
    const released = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'done',
      until: (l) => !!l?.metadata?.deletionTimestamp,
      description: 'the lease to be deleted',
    });
    expect(findCondition(released?.status?.conditions, 'RunCompleted')).toMatchObject({
      status: 'True',
      reason: 'JobCompleted',
      message:
        'job "e2e" (id 11) of run 1001 attempt 1 of acme/app completed with conclusion failure',
    });
    const event = await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterLease', name: 'done' },
      'RunCompleted',
    );
    expect(event.type).toBe('Normal');
    expect(event.message).toContain(
      'run 1001 attempt 1 of acme/app completed with conclusion failure',
    );
    expect(standIn.jobRequests(REPO, 1001).map((r) => r.authorization)).toEqual([
      'token ghp_operator',
    ]);
    await ns.api.patch(
      LEASES,
      { name: 'done', namespace: ns.name },
      { metadata: { finalizers: null } },
    );
    await gone('done');
  });

  it('asks once per run for several leases of the run', async () => {
    standIn.setJobs(REPO, 1003, 2, [
      { id: 31, name: 'e2e (4.16)', status: 'completed', conclusion: 'success' },
      { id: 32, name: 'e2e (4.17)', status: 'completed', conclusion: 'cancelled' },
    ]);
    for (const name of ['leg-a', 'leg-b', 'leg-c'])
      await ns.api.create(LEASES, runLease(name, { runId: 1003, attempt: 2 }));
    await Promise.all(['leg-a', 'leg-b', 'leg-c'].map(gone));
    expect(standIn.jobRequests(REPO, 1003)).toHaveLength(1);
    expect(standIn.jobRequests(REPO, 1003)[0]?.path).toBe(
      '/repos/acme/app/actions/runs/1003/attempts/2/jobs',
    );
  });

  it('keeps the lease while its job runs, asks again with the ETag, and releases once it completed', async () => {
    const running = [{ id: 21, name: 'e2e', status: 'in_progress' as const, conclusion: null }];
    standIn.setJobs(REPO, 1002, 1, running);
    await ns.api.create(LEASES, runLease('running', { runId: 1002 }));
    const waiting = await runCondition('running', 'AttemptInProgress');
    expect(waiting).toMatchObject({ status: 'False' });
    expect(waiting?.message).toContain('"e2e" in_progress');

    // The next poll: unchanged, so 304 (which costs no rate limit), and the lease stays.
    clock.advance(POLL);
    const [first, second] = await standIn.requestsFor(REPO, 1002, 2);
    expect(first).toMatchObject({ status: 200 });
    expect(second).toMatchObject({ status: 304 });
    expect(second?.ifNoneMatch).toMatch(/^W\/"/);
    await settled();
    expect(await exists('running')).toBe(true);

    standIn.setJobs(REPO, 1002, 1, [
      { ...running[0]!, status: 'completed', conclusion: 'success' },
    ]);
    clock.advance(POLL);
    await gone('running');
    expect(standIn.jobRequests(REPO, 1002).map((r) => r.status)).toEqual([200, 304, 200]);
  });

  it('never releases on a 404, says RunNotFound, and asks again with backoff', async () => {
    await ns.api.create(LEASES, runLease('unknown-run', { runId: 1004 }));
    // The backoff (30 minutes, longer than the 10-minute poll), then twice that.
    advancePast(await waitsBeforeAsking('unknown-run', 1004, 1, 'RunNotFound', 30 * MINUTE));
    const third = await waitsBeforeAsking('unknown-run', 1004, 2, 'RunNotFound', 60 * MINUTE);
    expect(standIn.jobRequests(REPO, 1004).map((r) => r.status)).toEqual([404, 404]);

    // Once GitHub knows the run, the lease follows it.
    standIn.setJobs(REPO, 1004, 1, [
      { id: 41, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    advancePast(third);
    await gone('unknown-run');
    expect(standIn.jobRequests(REPO, 1004)).toHaveLength(3);
  });

  it('never releases while GitHub fails or cannot be reached, and backs off doubling', async () => {
    standIn.setJobs(REPO, 1005, 1, [
      { id: 51, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    // A 503, then the connection cut before any answer.
    standIn.failNext(REPO, 1005, { kind: 'status', status: 503 }, { kind: 'drop' });
    await ns.api.create(LEASES, runLease('outage', { runId: 1005 }));
    advancePast(await waitsBeforeAsking('outage', 1005, 1, 'GitHubUnavailable', 30 * MINUTE));
    const third = await waitsBeforeAsking('outage', 1005, 2, 'GitHubUnavailable', 60 * MINUTE);
    expect(standIn.jobRequests(REPO, 1005).map((r) => r.status)).toEqual([503, 0]);

    advancePast(third);
    await gone('outage');
    expect(standIn.jobRequests(REPO, 1005).map((r) => r.status)).toEqual([503, 0, 200]);
  });

  it('waits for x-ratelimit-reset and Retry-After before asking again', async () => {
    standIn.setJobs(REPO, 1006, 1, [
      { id: 61, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    standIn.failNext(
      REPO,
      1006,
      { kind: 'primary-rate-limit', resetInMs: 40 * MINUTE },
      { kind: 'secondary-rate-limit', retryAfterSeconds: 600 },
    );
    await ns.api.create(LEASES, runLease('limited', { runId: 1006 }));
    // x-ratelimit-reset is in whole seconds: up to one more than asked for.
    const reset = await waitsBeforeAsking('limited', 1006, 1, 'RateLimited', 40 * MINUTE - 1000);
    expect(reset % 1000).toBe(0);
    advancePast(reset);
    const third = await waitsBeforeAsking('limited', 1006, 2, 'RateLimited', 600_000);
    expect(standIn.jobRequests(REPO, 1006).map((r) => r.status)).toEqual([403, 429]);

    advancePast(third);
    await gone('limited');
    expect(standIn.jobRequests(REPO, 1006)).toHaveLength(3);
  });

  it('authenticates as a GitHub App: mints an installation token and asks with it', async () => {
    await manager?.stop();
    const keys = appKeys();
    standIn.registerApp('4242', keys.publicKey, 77);
    await ns.api.create(
      SECRETS,
      secret('github-app', {
        'app-id': '4242',
        'private-key': keys.privateKey,
        'installation-id': '77',
      }),
    );
    await start('github-app');
    standIn.setJobs(REPO, 1007, 1, [
      { id: 71, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    await ns.api.create(LEASES, runLease('app', { runId: 1007, jobId: 71 }));
    await gone('app');

    const minted = standIn.requests.filter((r) => r.path === '/app/installations/77/access_tokens');
    expect(minted).toMatchObject([{ method: 'POST', status: 201 }]);
    expect(minted[0]?.authorization).toMatch(/^bearer /i);
    const [asked] = standIn.jobRequests(REPO, 1007);
    expect(asked).toMatchObject({
      status: 200,
      authorization: expect.stringMatching(/^token ghs_standin/),
    });
  });
});

function secret(name: string, values: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns.name },
    data: Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  };
}

const appKeys = (): { privateKey: string; publicKey: string } =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
