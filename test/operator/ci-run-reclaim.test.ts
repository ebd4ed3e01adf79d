import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ANNOTATION_KEEP_AFTER_JOB } from '../../contracts/run-annotations.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, SECRETS } from '../../client/api/resources.js';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import { ApiProxy } from '../support/api-proxy.js';
import { eventFor } from '../support/events.js';
import { GitHubStandIn } from '../support/github-stand-in.js';
import { HOLD, MINUTE, POLL, REPO, ReclaimWorld, secret } from './ci-run-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'cirun' });
const { ns } = world;

describe('releasing leases whose GitHub job has completed', () => {
  const reclaim = new ReclaimWorld(world, new TestClock());
  const { clock } = reclaim;
  let standIn: GitHubStandIn;
  let proxy: ApiProxy | undefined;

  beforeAll(async () => {
    standIn = await GitHubStandIn.start(() => clock.now());
    await reclaim.setUp(standIn);
    await reclaim.start(reclaim.settings('github-token'));
  });
  afterAll(async () => {
    await reclaim.stop();
    await proxy?.stop();
    await standIn?.stop();
  });

  it('asks GitHub nothing about a repository outside the allowed list, and says so', async () => {
    await ns.api.create(
      LEASES,
      reclaim.runLease('foreign', { repository: 'other/repo', runId: 900 }),
    );
    const condition = await reclaim.runCondition('foreign', 'RepositoryNotAllowed');
    expect(condition).toMatchObject({ status: 'Unknown' });
    expect(condition?.message).toContain('--github-allowed-repositories');
    expect(standIn.requests).toHaveLength(0);
    await ns.api.delete(LEASES, 'foreign', ns.name);
  });

  it('leaves alone a lease held after a failure or kept after its job', async () => {
    standIn.setJobs(REPO, 1008, 1, [
      { id: 81, name: 'e2e', status: 'completed', conclusion: 'failure' },
    ]);
    const kept = reclaim.runLease('kept', { runId: 1008 });
    kept.metadata!.annotations![ANNOTATION_KEEP_AFTER_JOB] = 'true';
    // A lease is held only once bound (the admission policy refuses the label before): bound a
    // minute ahead, so that no answer can be asked for before the label is there, then held.
    await reclaim.create(reclaim.runLease('held', { runId: 1008 }));
    await reclaim.bind('held', reclaim.clock.now() + MINUTE);
    await ns.api.patch(
      LEASES,
      { name: 'held', namespace: ns.name },
      { metadata: { labels: { [LABEL_LEASE_HELD]: 'true' } } },
    );
    await reclaim.createBound(kept);
    // Each says why GitHub is not asked; then the held one is past its binding too.
    await reclaim.runCondition('held', 'KeptPastItsJob', 'held (label');
    await reclaim.runCondition('kept', 'KeptPastItsJob', "the Action's release: false");
    reclaim.clock.advance(2 * MINUTE);
    await reclaim.settled();
    expect(await reclaim.exists('held')).toBe(true);
    expect(await reclaim.exists('kept')).toBe(true);
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
    await reclaim.createBound(reclaim.runLease('done', { runId: 1001, jobId: 11 }, [HOLD]));
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
    await reclaim.remove('done');
  });

  it('asks once per run for several leases of the run', async () => {
    standIn.setJobs(REPO, 1003, 2, [
      { id: 31, name: 'e2e (4.16)', status: 'completed', conclusion: 'success' },
      { id: 32, name: 'e2e (4.17)', status: 'completed', conclusion: 'cancelled' },
    ]);
    const legs = ['leg-a', 'leg-b', 'leg-c'];
    // Bound in the same second, as the legs of a matrix that lease from one pool's spares.
    for (const name of legs)
      await ns.api.create(LEASES, reclaim.runLease(name, { runId: 1003, attempt: 2 }));
    const boundAt = clock.now();
    await Promise.all(legs.map((name) => reclaim.bind(name, boundAt)));
    await Promise.all(legs.map((name) => reclaim.gone(name)));
    expect(standIn.jobRequests(REPO, 1003)).toHaveLength(1);
    expect(standIn.jobRequests(REPO, 1003)[0]?.path).toBe(
      '/repos/acme/app/actions/runs/1003/attempts/2/jobs',
    );
  });

  it('never releases a lease on an answer GitHub gave before the lease was bound', async () => {
    // The run's first job leases, completes, and its lease goes ("all 1 jobs completed").
    const build = { id: 91, name: 'build', status: 'completed' as const, conclusion: 'success' };
    standIn.setJobs(REPO, 1009, 1, [build]);
    // A leg that was already waiting for a cluster then (a lease is asked about once bound).
    await ns.api.create(LEASES, reclaim.runLease('waited', { runId: 1009 }, [HOLD]));
    await reclaim.createBound(reclaim.runLease('build', { runId: 1009 }));
    await reclaim.gone('build');

    // The matrix legs that need it appear only now; the answer above holds for the poll interval.
    standIn.setJobs(REPO, 1009, 1, [
      build,
      { id: 92, name: 'e2e (4.16)', status: 'in_progress', conclusion: null },
    ]);
    await reclaim.bind('waited');
    await reclaim.createBound(reclaim.runLease('new', { runId: 1009 }, [HOLD]));
    for (const name of ['waited', 'new']) {
      const told = await reclaim.told(name);
      expect(told.metadata?.deletionTimestamp).toBeUndefined();
      expect(findCondition(told.status?.conditions, 'RunCompleted')).toMatchObject({
        status: 'False',
        reason: 'AttemptInProgress',
      });
    }
    // One more request, for both: the answer before them could not release them.
    expect(standIn.jobRequests(REPO, 1009)).toHaveLength(2);
    await reclaim.remove('waited');
    await reclaim.remove('new');
  });

  it('keeps the lease while its job runs, asks again with the ETag, and releases once it completed', async () => {
    const running = [{ id: 21, name: 'e2e', status: 'in_progress' as const, conclusion: null }];
    standIn.setJobs(REPO, 1002, 1, running);
    await reclaim.createBound(reclaim.runLease('running', { runId: 1002 }));
    const waiting = await reclaim.runCondition('running', 'AttemptInProgress');
    expect(waiting).toMatchObject({ status: 'False' });
    expect(waiting?.message).toContain('"e2e" in_progress');

    // The next poll: unchanged, so 304 (which costs no rate limit), and the lease stays.
    clock.advance(POLL);
    const [first, second] = await standIn.requestsFor(REPO, 1002, 2);
    expect(first).toMatchObject({ status: 200 });
    expect(second).toMatchObject({ status: 304 });
    expect(second?.ifNoneMatch).toMatch(/^W\/"/);
    await reclaim.settled();
    expect(await reclaim.exists('running')).toBe(true);

    standIn.setJobs(REPO, 1002, 1, [
      { ...running[0]!, status: 'completed', conclusion: 'success' },
    ]);
    clock.advance(POLL);
    await reclaim.gone('running');
    expect(standIn.jobRequests(REPO, 1002).map((r) => r.status)).toEqual([200, 304, 200]);
  });

  it('never releases on a 404, says RunNotFound, and asks again with backoff', async () => {
    await reclaim.createBound(reclaim.runLease('unknown-run', { runId: 1004 }));
    // The backoff (30 minutes, longer than the 10-minute poll), then twice that.
    reclaim.advancePast(
      await reclaim.waitsBeforeAsking('unknown-run', 1004, 1, 'RunNotFound', 30 * MINUTE),
    );
    const third = await reclaim.waitsBeforeAsking(
      'unknown-run',
      1004,
      2,
      'RunNotFound',
      60 * MINUTE,
    );
    expect(standIn.jobRequests(REPO, 1004).map((r) => r.status)).toEqual([404, 404]);

    // Once GitHub knows the run, the lease follows it.
    standIn.setJobs(REPO, 1004, 1, [
      { id: 41, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    reclaim.advancePast(third);
    await reclaim.gone('unknown-run');
    expect(standIn.jobRequests(REPO, 1004)).toHaveLength(3);
  });

  it('never releases while GitHub fails or cannot be reached, and backs off doubling', async () => {
    standIn.setJobs(REPO, 1005, 1, [
      { id: 51, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    // Two 503s (about this run: it waits, doubling), then the connection cut before any answer
    // (about GitHub: every request waits).
    standIn.failNext(
      REPO,
      1005,
      { kind: 'status', status: 503 },
      { kind: 'status', status: 503 },
      { kind: 'drop' },
    );
    await reclaim.createBound(reclaim.runLease('outage', { runId: 1005 }));
    reclaim.advancePast(
      await reclaim.waitsBeforeAsking('outage', 1005, 1, 'GitHubUnavailable', 30 * MINUTE),
    );
    reclaim.advancePast(
      await reclaim.waitsBeforeAsking('outage', 1005, 2, 'GitHubUnavailable', 60 * MINUTE),
    );
    const fourth = await reclaim.waitsBeforeAsking(
      'outage',
      1005,
      3,
      'GitHubUnavailable',
      30 * MINUTE,
    );
    expect(standIn.jobRequests(REPO, 1005).map((r) => r.status)).toEqual([503, 503, 0]);

    reclaim.advancePast(fourth);
    await reclaim.gone('outage');
    expect(standIn.jobRequests(REPO, 1005).map((r) => r.status)).toEqual([503, 503, 0, 200]);
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
    await reclaim.createBound(reclaim.runLease('limited', { runId: 1006 }));
    // x-ratelimit-reset is in whole seconds: up to one more than asked for.
    const reset = await reclaim.waitsBeforeAsking(
      'limited',
      1006,
      1,
      'RateLimited',
      40 * MINUTE - 1000,
    );
    expect(reset % 1000).toBe(0);
    reclaim.advancePast(reset);
    const third = await reclaim.waitsBeforeAsking('limited', 1006, 2, 'RateLimited', 600_000);
    expect(standIn.jobRequests(REPO, 1006).map((r) => r.status)).toEqual([403, 429]);

    reclaim.advancePast(third);
    await reclaim.gone('limited');
    expect(standIn.jobRequests(REPO, 1006)).toHaveLength(3);
  });

  it('authenticates as a GitHub App: mints an installation token and asks with it', async () => {
    const keys = appKeys();
    standIn.registerApp('4242', keys.publicKey, 77);
    await ns.api.create(
      SECRETS,
      secret(ns.name, 'github-app', {
        'app-id': '4242',
        'private-key': keys.privateKey,
        'installation-id': '77',
      }),
    );
    await reclaim.start(reclaim.settings('github-app'));
    standIn.setJobs(REPO, 1007, 1, [
      { id: 71, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    await reclaim.createBound(reclaim.runLease('app', { runId: 1007, jobId: 71 }));
    await reclaim.gone('app');

    const minted = standIn.requests.filter((r) => r.path === '/app/installations/77/access_tokens');
    expect(minted).toMatchObject([{ method: 'POST', status: 201 }]);
    expect(minted[0]?.authorization).toMatch(/^bearer /i);
    const [asked] = standIn.jobRequests(REPO, 1007);
    expect(asked).toMatchObject({
      status: 200,
      authorization: expect.stringMatching(/^token ghs_standin/),
    });
  });

  it('asks nothing more about a run whose lease it released, also while its cache still shows the lease', async () => {
    // The operator sees every change two seconds late, as a busy apiserver's watch may bring it.
    proxy = await ApiProxy.start();
    proxy.watchDelayMs = 2000;
    await reclaim.start(reclaim.settings('github-token'), proxy.kubeConfig());
    standIn.setJobs(REPO, 1010, 1, [
      { id: 101, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    await reclaim.createBound(reclaim.runLease('released', { runId: 1010 }));
    await reclaim.gone('released');
    // The next poll comes before the operator's cache shows the lease gone: nobody holds the
    // run any more, so GitHub is not asked about it.
    clock.advance(POLL);
    await reclaim.settled();
    expect(standIn.jobRequests(REPO, 1010)).toHaveLength(1);
  });
});

const appKeys = (): { privateKey: string; publicKey: string } =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
