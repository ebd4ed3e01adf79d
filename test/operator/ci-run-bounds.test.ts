import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES } from '../../client/api/resources.js';
import { gitHubReclaimSettings } from '../../operator/controllers/cirun/github-settings.js';
import { ConnectProxy } from '../support/connect-proxy.js';
import { eventFor } from '../support/events.js';
import type { Failure } from '../support/github-stand-in.js';
import { GitHubStandIn } from '../support/github-stand-in.js';
import { kubectl } from '../support/kubectl.js';
import { Tenant } from '../support/tenant.js';
import { useWorld } from '../support/world.js';
import { MINUTE, POLL, REPO, ReclaimWorld } from './ci-run-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'cirun-bounds' });
const { ns } = world;
/** The operator's timeout of one request to GitHub (REQUEST_TIMEOUT_MS), on its clock. */
const REQUEST_TIMEOUT = 30_000;
const completed = (id: number) =>
  [{ id, name: 'e2e', status: 'completed' as const, conclusion: 'success' }] as const;
const inProgress = (id: number) =>
  [{ id, name: 'e2e', status: 'in_progress' as const, conclusion: null }] as const;

/**
 * Every path by which a tenant's lease reaches GitHub with the operator's credential, and the
 * bounds on each (docs/reference/kinds.md#what-a-namespace-may-spend): only bound leases of an
 * existing pool are asked about; answers about one run or repository hold back only that run or
 * repository; a namespace has a cap on runs and a request budget; and the client goes through
 * the platform's egress proxy.
 */
describe('the bounds on asking GitHub about leases', () => {
  const reclaim = new ReclaimWorld(world, new TestClock());
  const { clock } = reclaim;
  let standIn: GitHubStandIn;
  let runs = 3000;
  const nextRun = (): number => ++runs;

  let tenant: Tenant;

  beforeAll(async () => {
    standIn = await GitHubStandIn.start(() => clock.now());
    await reclaim.setUp(standIn);
    // The leases come from a tenant with the CI identity's rights (samples/ci-identity-rbac.yaml):
    // their run annotations are the tenant's to write, their binding the operator's.
    tenant = await Tenant.create(ns, ns.name, 'ci-identity', [
      {
        apiGroups: ['guestcluster.opdev.io'],
        resources: ['clusterleases'],
        verbs: ['create', 'get', 'watch', 'list', 'patch', 'delete'],
      },
    ]);
    reclaim.asTenant(tenant.api);
    await reclaim.start(reclaim.settings('github-token'));
  });
  afterAll(async () => {
    await reclaim.stop();
    await tenant?.close();
    await standIn?.stop();
  });

  /** A lease of another run whose job has completed is released at once: nothing holds it back. */
  const anotherRunIsReleased = async (name: string): Promise<void> => {
    const runId = nextRun();
    standIn.setJobs(REPO, runId, 1, [...completed(runId)]);
    await reclaim.createBound(reclaim.runLease(name, { runId }));
    await reclaim.gone(name);
    expect(standIn.jobRequests(REPO, runId)).toHaveLength(1);
  };

  it('asks nothing about a lease until it is bound, nor about one whose pool does not exist', async () => {
    const [waiting, orphan] = [nextRun(), nextRun()];
    standIn.setJobs(REPO, waiting, 1, [...completed(waiting)]);
    standIn.setJobs(REPO, orphan, 1, [...completed(orphan)]);
    await reclaim.create(reclaim.runLease('waiting', { runId: waiting }));
    await reclaim.createBound(reclaim.runLease('orphan', { runId: orphan }, [], 'no-such-pool'));
    await reclaim.settled();
    expect(standIn.jobRequests(REPO, waiting)).toHaveLength(0);
    expect(standIn.jobRequests(REPO, orphan)).toHaveLength(0);
    for (const name of ['waiting', 'orphan']) {
      const lease = await ns.api.get<ClusterLease>(LEASES, name, ns.name);
      expect(findCondition(lease.status?.conditions, 'RunCompleted')).toBeUndefined();
    }

    await reclaim.bind('waiting');
    await reclaim.gone('waiting');
    expect(standIn.jobRequests(REPO, waiting)).toHaveLength(1);
    await ns.api.delete(LEASES, 'orphan', ns.name);
  });

  it.each([
    ['410', { kind: 'status', status: 410, message: 'Gone' }, 'RunGone'],
    ['422', { kind: 'status', status: 422, message: 'Unprocessable Entity' }, 'RequestRejected'],
    ['a 5xx', { kind: 'status', status: 502, message: 'Bad Gateway' }, 'GitHubUnavailable'],
  ] as [string, Failure, string][])(
    '%s about one run holds back only that run, and says why with one Event',
    async (_, failure, reason) => {
      const runId = nextRun();
      const name = `run-${runId}`;
      standIn.setJobs(REPO, runId, 1, [...completed(runId)]);
      standIn.failNext(REPO, runId, failure);
      await reclaim.createBound(reclaim.runLease(name, { runId }));
      const condition = await reclaim.runCondition(name, reason);
      expect(condition?.status).toBe('Unknown');
      expect(condition?.message).toContain(`run ${runId} attempt 1 of acme/app`);
      expect(condition?.message).toContain('other runs are asked as usual');

      await anotherRunIsReleased(`other-${runId}`);
      const event = await eventFor(ns.kubeConfig, ns.name, { kind: 'ClusterLease', name }, reason);
      expect(event).toMatchObject({ type: 'Warning', message: condition?.message });
      await reclaim.settled();
      const again = await eventFor(ns.kubeConfig, ns.name, { kind: 'ClusterLease', name }, reason);
      expect(again.count ?? 1).toBe(1);
      expect(standIn.jobRequests(REPO, runId)).toHaveLength(1);
      expect(await reclaim.exists(name)).toBe(true);
      await ns.api.delete(LEASES, name, ns.name);
    },
  );

  it.each([
    ['a redirect (a renamed repository)', 'acme/old-name', 'RepositoryMoved', 'renamed'],
    ['403 without a rate limit (SAML SSO)', 'acme/sso', 'RepositoryAccessDenied', 'SAML'],
    ['451', 'acme/blocked', 'RepositoryUnavailable', 'legal'],
  ])('%s holds back that repository only, and says why', async (_, repository, reason, says) => {
    const failures: Record<string, Failure> = {
      RepositoryMoved: { kind: 'moved', location: `${standIn.url}/repositories/7/followed` },
      RepositoryAccessDenied: { kind: 'sso' },
      RepositoryUnavailable: { kind: 'status', status: 451, message: 'Repository access blocked' },
    };
    standIn.failRepository(repository, failures[reason]);
    const [first, second] = [nextRun(), nextRun()];
    await reclaim.createBound(reclaim.runLease(`a-${first}`, { repository, runId: first }));
    const condition = await reclaim.runCondition(`a-${first}`, reason);
    expect(condition?.message).toContain(repository);
    expect(condition?.message).toContain(says);
    // Another run of the repository is not asked about; other repositories are, as usual.
    await reclaim.createBound(reclaim.runLease(`b-${second}`, { repository, runId: second }));
    await reclaim.runCondition(`b-${second}`, reason);
    await anotherRunIsReleased(`c-${second}`);
    expect(standIn.repositoryRequests(repository)).toHaveLength(1);
    // A redirect is not followed, to that host or any.
    expect(standIn.requests.filter((r) => r.path.startsWith('/repositories/'))).toEqual([]);
    standIn.failRepository(repository, undefined);
    await ns.api.delete(LEASES, `a-${first}`, ns.name);
    await ns.api.delete(LEASES, `b-${second}`, ns.name);
  });

  it('a request GitHub does not answer holds back only its run, and no other lease waits for it', async () => {
    const slow = nextRun();
    standIn.setJobs(REPO, slow, 1, [...completed(slow)]);
    standIn.failNext(REPO, slow, { kind: 'hang' });
    await reclaim.createBound(reclaim.runLease('slow', { runId: slow }));
    await standIn.requestsFor(REPO, slow, 1);

    // While it hangs, another lease is asked about and released.
    await anotherRunIsReleased('quick');
    expect(standIn.hangingRequests).toBe(1);

    // It times out on the operator's clock; that run waits, and the others are asked as usual.
    clock.advance(REQUEST_TIMEOUT);
    const condition = await reclaim.runCondition('slow', 'RequestTimedOut');
    expect(condition?.message).toContain(`run ${slow} attempt 1 of acme/app`);
    expect(standIn.hangingRequests).toBe(0);
    await anotherRunIsReleased('after-timeout');
    expect(await reclaim.exists('slow')).toBe(true);
    await ns.api.delete(LEASES, 'slow', ns.name);
  });

  it('asks about at most --github-namespace-max-runs runs of a namespace, the oldest first, and says so on the others', async () => {
    await reclaim.start(reclaim.settings('github-token', { maxRunsPerNamespace: 2 }));
    const ids = [nextRun(), nextRun(), nextRun()];
    for (const runId of ids) standIn.setJobs(REPO, runId, 1, [...inProgress(runId)]);
    const names = ids.map((runId) => `capped-${runId}`);
    for (const [i, runId] of ids.entries()) {
      await reclaim.createBound(reclaim.runLease(names[i]!, { runId }));
      if (i < 2) await reclaim.runCondition(names[i]!, 'AttemptInProgress');
    }
    const condition = await reclaim.runCondition(names[2]!, 'RunCapReached');
    expect(condition?.message).toContain('name 3 distinct GitHub run attempts');
    expect(condition?.message).toContain('at most 2 per namespace (--github-namespace-max-runs');
    expect(standIn.jobRequests(REPO, ids[2]!)).toHaveLength(0);
    const event = await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterLease', name: names[2]! },
      'RunCapReached',
    );
    expect(event.type).toBe('Warning');
    // Counted with kubectl get: the RUN column shows the condition's reason.
    const listed = await kubectl(['get', 'clusterleases', '-n', ns.name, '-o', 'wide']);
    const rows = listed.stdout.split('\n').filter((line) => line.includes('RunCapReached'));
    expect(rows).toEqual([expect.stringContaining(names[2]!)]);

    // An older run's lease goes: at its next look, the capped lease's run is asked about.
    await ns.api.delete(LEASES, names[0]!, ns.name);
    await reclaim.gone(names[0]!);
    clock.advance(POLL);
    await reclaim.runCondition(names[2]!, 'AttemptInProgress');
    expect(standIn.jobRequests(REPO, ids[2]!)).toHaveLength(1);
    for (const name of names.slice(1)) await ns.api.delete(LEASES, name, ns.name);
  });

  it('spends at most --github-namespace-requests-per-hour requests of a namespace, and says so', async () => {
    await reclaim.start(reclaim.settings('github-token', { requestsPerNamespacePerHour: 2 }));
    const ids = [nextRun(), nextRun(), nextRun()];
    for (const runId of ids) standIn.setJobs(REPO, runId, 1, [...inProgress(runId)]);
    const names = ids.map((runId) => `budget-${runId}`);
    for (const i of [0, 1]) {
      await reclaim.createBound(reclaim.runLease(names[i]!, { runId: ids[i]! }));
      await reclaim.runCondition(names[i]!, 'AttemptInProgress');
    }
    const windowStart = standIn.jobRequests(REPO, ids[0]!)[0]!.atMs;
    await reclaim.createBound(reclaim.runLease(names[2]!, { runId: ids[2]! }));
    const condition = await reclaim.runCondition(names[2]!, 'RequestBudgetExhausted');
    expect(condition?.message).toContain(
      `namespace ${ns.name} has used its 2 requests to GitHub for this hour`,
    );
    const at = Date.parse(/ at (\S+Z)$/.exec(condition?.message ?? '')?.[1] ?? '');
    expect(at - windowStart).toBeGreaterThanOrEqual(60 * MINUTE - 1000);
    expect(at - windowStart).toBeLessThanOrEqual(60 * MINUTE + 1000);
    expect(standIn.jobRequests(REPO, ids[2]!)).toHaveLength(0);

    // The next hour: the lease is asked about.
    for (const name of names.slice(0, 2)) {
      await ns.api.delete(LEASES, name, ns.name);
      await reclaim.gone(name);
    }
    reclaim.advancePast(at);
    await reclaim.runCondition(names[2]!, 'AttemptInProgress');
    expect(standIn.jobRequests(REPO, ids[2]!)).toHaveLength(1);
    await ns.api.delete(LEASES, names[2]!, ns.name);
  });

  it('reaches GitHub through the egress proxy of HTTPS_PROXY, trusting the CA bundle, unless NO_PROXY exempts it', async () => {
    // Reachable only through the proxy: no resolver knows the name.
    const host = 'github.proxied.test';
    const proxied = await GitHubStandIn.start(() => clock.now(), host);
    proxied.acceptToken('ghp_operator');
    const proxy = await ConnectProxy.start(new Map([[`${host}:${proxied.port}`, proxied.port]]));
    const folder = mkdtempSync(join(tmpdir(), 'trusted-ca-'));
    try {
      // The trusted CA bundle as OpenShift injects it: the system roots and the proxy's own CA.
      writeFileSync(join(folder, 'ca-bundle.crt'), [...rootCertificates, proxied.ca].join('\n'));
      const fromEnvironment = (noProxy: string) => {
        const problems: string[] = [];
        const settings = gitHubReclaimSettings(
          {},
          {
            GITHUB_CREDENTIALS_SECRET: 'github-token',
            GITHUB_ALLOWED_REPOSITORIES: 'acme/*',
            GITHUB_API_URL: proxied.url,
            GITHUB_CA_FILE: join(folder, 'ca-bundle.crt'),
            HTTPS_PROXY: proxy.url,
            NO_PROXY: noProxy,
          },
          problems,
          (path) => readFileSync(path, 'utf8'),
        );
        expect(problems).toEqual([]);
        return { ...settings!, pollIntervalMs: POLL, backoff: reclaim.settings('').backoff };
      };
      await reclaim.start(fromEnvironment('localhost,127.0.0.1'));
      const runId = nextRun();
      proxied.setJobs(REPO, runId, 1, [...completed(runId)]);
      await reclaim.createBound(reclaim.runLease('proxied', { runId }));
      await reclaim.gone('proxied');
      // Tunnels to the API host only (a connection may be opened more than once).
      expect(new Set(proxy.connects)).toEqual(new Set([`${host}:${proxied.port}`]));
      const tunnels = proxy.connects.length;
      expect(proxied.jobRequests(REPO, runId)).toMatchObject([
        { status: 200, authorization: 'token ghp_operator' },
      ]);

      // Exempted by NO_PROXY, the request goes straight to a name that does not resolve.
      await reclaim.start(fromEnvironment(`localhost,.proxied.test`));
      const direct = nextRun();
      proxied.setJobs(REPO, direct, 1, [...completed(direct)]);
      await reclaim.createBound(reclaim.runLease('direct', { runId: direct }));
      const condition = await reclaim.runCondition('direct', 'GitHubUnavailable');
      expect(condition?.message).toContain('no answer from GitHub');
      expect(proxy.connects).toHaveLength(tunnels);
      expect(proxied.jobRequests(REPO, direct)).toHaveLength(0);
      await ns.api.delete(LEASES, 'direct', ns.name);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await proxy.stop();
      await proxied.stop();
      await reclaim.start(reclaim.settings('github-token'));
    }
  });
});
