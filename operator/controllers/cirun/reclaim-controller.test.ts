import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { FakeApi, FakeCache, FakeClock, FakeEvents } from '../../../test/support/fake-ports.js';
import { GitHubStandIn } from '../../../test/support/github-stand-in.js';
import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import { findCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES, POOLS, SECRETS } from '../../../client/api/resources.js';
import { ObjectClient } from '../../kube/kube-client.js';
import { REQUEST_TIMEOUT_MS } from './github-api.js';
import type { GitHubReclaimSettings } from './github-settings.js';
import { ReclaimController } from './reclaim-controller.js';

const NS = 'ci';
const MINUTE = 60_000;

/** The fake clock, with timers that are never due (unreferenced): a request's timeout is set. */
class RequestClock extends FakeClock {
  override setTimeout(): NodeJS.Timeout {
    return setTimeout(() => undefined, 2 ** 31 - 1).unref();
  }
}

function ports(): FakePorts {
  const clock = new RequestClock(Date.parse('2026-12-01T12:00:00Z'));
  const api = new FakeApi(clock);
  return {
    api,
    client: new ObjectClient(api),
    cache: new FakeCache(api),
    events: new FakeEvents(),
    clock,
  };
}

describe('the reclaim controller on fake ports', () => {
  let standIn: GitHubStandIn;
  let fake: FakePorts;
  let controller: ReclaimController;
  let woken: string[];
  const github = (overrides: Partial<GitHubReclaimSettings> = {}): GitHubReclaimSettings => ({
    credentialsSecret: 'github',
    apiUrl: standIn.url,
    allowedRepositories: ['acme/app'],
    caCertificates: standIn.ca,
    pollIntervalMs: 2 * MINUTE,
    backoff: { baseMs: MINUTE, maxMs: 8 * MINUTE, jitter: 0 },
    maxRunsPerNamespace: 20,
    requestsPerNamespacePerHour: 1000,
    proxy: { httpsProxy: '', httpProxy: '', noProxy: '' },
    ...overrides,
  });
  const start = (overrides: Partial<GitHubReclaimSettings> = {}): void => {
    woken = [];
    controller = new ReclaimController(
      fake,
      { operatorNamespace: 'operator', github: github(overrides) },
      pino({ level: 'silent' }),
      (key) => woken.push(key),
    );
  };
  beforeAll(async () => {
    standIn = await GitHubStandIn.start(() => fake.clock.now());
    standIn.acceptToken('ghp_unit');
  });
  afterAll(() => standIn.stop());
  beforeEach(() => {
    fake = ports();
    start();
  });

  const seedSecret = (token = 'ghp_unit'): void =>
    void fake.api.seed(SECRETS, {
      metadata: { name: 'github', namespace: 'operator' },
      data: { token: Buffer.from(token).toString('base64') },
    });
  const ago = (ms: number): string =>
    new Date(fake.clock.now() - ms).toISOString().replace('.000', '');
  /**
   * A lease of `runId`, made two minutes ago and bound a minute ago to an instance of its
   * namespace's pool (which namespace `nopool` does not have).
   */
  const seedLease = (name: string, runId: number, namespace = NS): void => {
    if (namespace !== 'nopool' && !fake.api.peek(POOLS, 'pool', namespace))
      fake.api.seed(POOLS, { metadata: { name: 'pool', namespace } });
    fake.api.seed<ClusterLease>(LEASES, {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      metadata: {
        name,
        namespace,
        creationTimestamp: ago(2 * MINUTE),
        annotations: {
          [RUN_ANNOTATIONS.repository]: 'acme/app',
          [RUN_ANNOTATIONS.runId]: String(runId),
          [RUN_ANNOTATIONS.runAttempt]: '1',
        },
      },
      spec: { poolRef: { name: 'pool' } },
      status: {
        phase: 'Bound',
        instanceRef: { name: `pool-${name}`, uid: `uid-${name}` },
        boundTime: ago(MINUTE),
      },
    });
  };
  const condition = (name: string, namespace = NS) =>
    findCondition(
      fake.api.peek<ClusterLease>(LEASES, name, namespace)?.status?.conditions,
      'RunCompleted',
    );
  /** The next pass asked for, `ms` from now on the fake clock. */
  const passIn = (ms: number) => ({ requeueAt: fake.clock.now() + ms });
  /** A pass that sends a request, and the pass it wakes once GitHub answered. */
  const reconcileAsking = async (key: string) => {
    expect(await controller.reconcile(key)).toEqual(passIn(REQUEST_TIMEOUT_MS));
    await controller.idle();
    expect(woken).toContain(key);
    return controller.reconcile(key);
  };

  it('writes the condition once, and a second pass within the interval asks and writes nothing', async () => {
    seedSecret();
    standIn.setJobs('acme/app', 501, 1, [
      { id: 1, name: 'e2e', status: 'in_progress', conclusion: null },
    ]);
    seedLease('a', 501);
    seedLease('b', 501);
    expect(await reconcileAsking(`${NS}/a`)).toEqual(passIn(2 * MINUTE));
    const writes = [...fake.api.writes];
    expect(await controller.reconcile(`${NS}/a`)).toEqual(passIn(2 * MINUTE));
    expect(fake.api.writes).toEqual(writes);
    await controller.reconcile(`${NS}/b`);
    expect(condition('b')).toMatchObject({ status: 'False', reason: 'AttemptInProgress' });
    expect(standIn.jobRequests('acme/app', 501)).toHaveLength(1);
  });

  it('deletes a completed job’s lease as its TTL would, after the condition and the Event', async () => {
    seedSecret();
    standIn.setJobs('acme/app', 502, 1, [
      { id: 2, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    seedLease('done', 502);
    expect(await reconcileAsking(`${NS}/done`)).toEqual({});
    expect(fake.api.writes).toEqual([
      `status ClusterLease ${NS}/done`,
      `delete ClusterLease ${NS}/done`,
    ]);
    expect(fake.events.recorded).toEqual([
      {
        object: `ClusterLease ${NS}/done`,
        type: 'Normal',
        reason: 'RunCompleted',
        message:
          'GitHub reports that all 1 jobs of run 502 attempt 1 of acme/app completed (success: 1); releasing the cluster',
      },
    ]);
  });

  it('without the credentials Secret asks nothing and says CredentialInvalid', async () => {
    seedLease('nosecret', 503);
    expect(await reconcileAsking(`${NS}/nosecret`)).toEqual(passIn(MINUTE));
    expect(condition('nosecret')).toMatchObject({
      status: 'Unknown',
      reason: 'CredentialInvalid',
      message: expect.stringContaining('Secret github does not exist in the operator namespace'),
    });
    expect(standIn.jobRequests('acme/app', 503)).toHaveLength(0);
  });

  it('a refused token says CredentialRejected, backs off, and never releases', async () => {
    seedSecret('ghp_revoked');
    standIn.setJobs('acme/app', 504, 1, [
      { id: 4, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    seedLease('refused', 504);
    expect(await reconcileAsking(`${NS}/refused`)).toEqual(passIn(MINUTE));
    expect(condition('refused')).toMatchObject({
      status: 'Unknown',
      reason: 'CredentialRejected',
      message: expect.stringContaining('401 Bad credentials'),
    });
    expect(fake.api.peek(LEASES, 'refused', NS)).toBeDefined();
    expect(standIn.jobRequests('acme/app', 504).map((r) => r.status)).toEqual([401]);
  });

  it('bounds what many leases cost: a namespace’s run cap, and nothing for leases of no pool', async () => {
    seedSecret();
    const before = standIn.requests.length;
    for (let i = 0; i < 200; i++) {
      for (const runId of [10_000 + i, 20_000 + i])
        standIn.setJobs('acme/app', runId, 1, [
          { id: runId, name: 'e2e', status: 'in_progress', conclusion: null },
        ]);
      seedLease(`bound-${i}`, 10_000 + i);
      // Bound, as far as its status tells, to a pool its namespace does not have.
      seedLease(`orphan-${i}`, 20_000 + i, 'nopool');
    }
    for (let i = 0; i < 200; i++) {
      await controller.reconcile(`${NS}/bound-${i}`);
      await controller.reconcile(`nopool/orphan-${i}`);
    }
    await controller.idle();
    expect(standIn.requests.length - before).toBe(20);
    expect(condition('bound-199')).toMatchObject({ reason: 'RunCapReached' });
    expect(condition('orphan-0', 'nopool')).toBeUndefined();
  });

  it('gives each namespace a request budget of its own, and says so with one Warning Event', async () => {
    start({ requestsPerNamespacePerHour: 1 });
    seedSecret();
    for (const runId of [505, 506, 507])
      standIn.setJobs('acme/app', runId, 1, [
        { id: runId, name: 'e2e', status: 'in_progress', conclusion: null },
      ]);
    seedLease('first', 505);
    seedLease('second', 506);
    seedLease('elsewhere', 507, 'other');
    await reconcileAsking(`${NS}/first`);
    expect(await controller.reconcile(`${NS}/second`)).toEqual(passIn(60 * MINUTE));
    expect(condition('second')).toMatchObject({
      status: 'Unknown',
      reason: 'RequestBudgetExhausted',
      message: expect.stringContaining('namespace ci has used its 1 requests to GitHub'),
    });
    await controller.reconcile(`${NS}/second`);
    expect(fake.events.recorded.filter((e) => e.reason === 'RequestBudgetExhausted')).toEqual([
      expect.objectContaining({ object: `ClusterLease ${NS}/second`, type: 'Warning' }),
    ]);
    // Another namespace's lease is asked about: the budget is per namespace.
    await reconcileAsking('other/elsewhere');
    expect(condition('elsewhere', 'other')).toMatchObject({ reason: 'AttemptInProgress' });
    expect(standIn.jobRequests('acme/app', 506)).toHaveLength(0);
    expect(standIn.jobRequests('acme/app', 507)).toHaveLength(1);
  });
});
