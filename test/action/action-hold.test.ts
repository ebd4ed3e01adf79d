import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { waitFor } from '../../dev/support/wait-for.js';
import {
  hcpPool,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { useWorld } from '../support/world.js';
import { installLeaseTtlPolicy } from '../support/lease-ttl-policy.js';
import { canI } from '../support/tenant.js';
import { testEnv } from '../support/test-env.js';
import { ActionJob } from '../support/runners/action-runner.js';
import type { CiAccess } from './ci-identity.js';
import { actionInputs, ciIdentity } from './ci-identity.js';

const world = useWorld({ namespace: 'hold', enabled: true });
const { ns } = world;
const POOL = 'hold';

describe('the GitHub Action holds a failed job’s cluster (committed bundles)', () => {
  const clock = new TestClock();
  let access: CiAccess;
  let manager: Manager;
  let runs = 0;

  beforeAll(async () => {
    access = await ciIdentity(ns);
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, POOL, { maxSize: 4, maxLeaseDuration: '2h', maxHoldDuration: '10m' }),
    );
    const kubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
    // One Ready instance per job of the file: no instance controller runs to make more.
    for (const n of [0, 1, 2, 3]) {
      await createPoolInstance(ns.api, poolInstance(ns.name, POOL, `${POOL}-${n}`));
      await settleInstance(ns.api, ns.name, `${POOL}-${n}`, 'Ready', kubeconfig);
    }
    await installLeaseTtlPolicy(ns.api, ns.name, POOL);
    manager = await world.startOperator({ clock });
  });
  afterAll(async () => {
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  /** One job of its own run: main leases a cluster with a hold on failure of 20m. */
  async function leasedJob(): Promise<{
    job: ActionJob;
    leaseName: string;
    inputs: Record<string, string>;
  }> {
    runs += 1;
    const job = await ActionJob.create({ GITHUB_RUN_ID: `${Date.now()}${runs}` });
    const inputs = actionInputs(access, ns.name, POOL, { ttl: '1h', 'hold-on-failure': '20m' });
    const main = await job.main(inputs).done;
    expect({ exitCode: main.exitCode, log: main.log }).toMatchObject({ exitCode: 0 });
    return { job, leaseName: main.outputs['lease-name']!, inputs };
  }

  const gone = (name: string): Promise<unknown> =>
    waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name,
      until: (l) => l === undefined,
      description: `ClusterLease ${name} to be released`,
    });

  it("fails before anything is leased when its TTL is above the pool's cap, naming it", async () => {
    const job = await ActionJob.create({ GITHUB_RUN_ID: `${Date.now()}0` });
    // The Action's default TTL, 6h, is above this pool's maxLeaseDuration.
    const main = await job.main(actionInputs(access, ns.name, POOL)).done;
    expect(main.exitCode).toBe(1);
    expect(main.log).toContain(
      `spec.ttl 6h is above what ClusterPool ${POOL} allows: spec.maxLeaseDuration 2h, counted from binding`,
    );
    expect((await ns.api.list(LEASES, { namespace: ns.name })).items).toEqual([]);
    expect((await job.post(actionInputs(access, ns.name, POOL))).exitCode).toBe(0);
  });

  it('releases as always when the job succeeded or was cancelled', async () => {
    for (const status of ['success', 'cancelled']) {
      const { job, leaseName, inputs } = await leasedJob();
      const post = await job.post({ ...inputs, 'job-status': status });
      expect([status, post.exitCode]).toEqual([status, 0]);
      expect(post.log).toContain(`Released ClusterLease ${ns.name}/${leaseName}`);
      expect(post.summary).not.toContain('# Diagnostics');
      await expect(ns.api.get(LEASES, leaseName, ns.name)).rejects.toMatchObject({ status: 404 });
    }
  });

  it("extends the lease from a later step with the companion action, up to the pool's cap", async () => {
    const { job, leaseName, inputs } = await leasedJob();
    const extendInputs = { ...inputs, 'lease-name': leaseName, ttl: '2h' };
    const extended = await job.extend(extendInputs);
    expect({ exitCode: extended.exitCode, log: extended.log }).toMatchObject({ exitCode: 0 });
    const lease = await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name);
    expect(lease.spec.ttl).toBe('2h');
    const expiresAt = new Date(Date.parse(lease.status!.boundTime!) + 2 * 3_600_000);
    expect(extended.outputs).toEqual({
      ttl: '2h',
      'expires-at': expiresAt.toISOString().replace('.000', ''),
    });

    const refused = await job.extend({ ...extendInputs, ttl: '3h' });
    expect(refused.exitCode).toBe(1);
    expect(refused.log).toContain(
      'spec.ttl 3h is above what ClusterPool hold allows: spec.maxLeaseDuration 2h, counted from binding',
    );
    expect((await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name)).spec.ttl).toBe('2h');
    expect(refused.log).not.toContain(access.token);
    expect((await job.post({ ...inputs, 'job-status': 'success' })).exitCode).toBe(0);
    await gone(leaseName);
  });

  it('keeps a failed job’s lease for the hold, capped by the pool, says how to reach it, and the operator releases it at the end', async () => {
    const { job, leaseName, inputs } = await leasedJob();
    const post = await job.post({ ...inputs, 'job-status': 'failure' });
    expect(post.exitCode).toBe(0);

    const held = await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name);
    expect(held.metadata?.deletionTimestamp).toBeUndefined();
    expect(held.metadata?.labels?.[LABEL_LEASE_HELD]).toBe('true');
    // The TTL counts from binding: the time bound so far plus the hold, which the pool's
    // maxHoldDuration (10m) cut from the 20m asked.
    const boundTime = Date.parse(held.status!.boundTime!);
    const ttlSeconds = Number(/^(\d+)s$/.exec(held.spec.ttl!)![1]);
    const holdEnd = boundTime + ttlSeconds * 1000;
    expect(holdEnd).toBeGreaterThanOrEqual(Date.now() + 9 * 60_000);
    expect(holdEnd).toBeLessThanOrEqual(Date.now() + 10 * 60_000 + 1000);
    const until = new Date(holdEnd).toISOString().replace('.000', '');

    const heading = `Held ClusterLease ${ns.name}/${leaseName} for 10m00s after the job failed: the operator releases it at ${until} (TTL ${held.spec.ttl}); shortened to fit the pool's spec.maxHoldDuration (10m)`;
    const readKubeconfig = `kubectl -n ${ns.name} get secret ${leaseName}-kubeconfig -o jsonpath='{.data.kubeconfig}' | base64 -d > guest.kubeconfig`;
    const who = `On the management cluster, as ServiceAccount ${ns.name}/guestcluster-ci (\`kubectl -n ${ns.name} create token guestcluster-ci\` gives a token for it), or as a person who may read Secrets in namespace ${ns.name}:`;
    for (const text of [
      heading,
      who,
      readKubeconfig,
      `kubectl -n ${ns.name} delete clusterlease ${leaseName}`,
    ]) {
      expect(post.summary).toContain(text);
      expect(post.log).toContain(text);
    }
    expect(post.log).not.toContain('Released ClusterLease');
    expect(post.log).not.toContain(access.token);

    // The diagnostics of the failed job's lease, collected before the hold, in the summary:
    // the lease as the CI identity sees it, and what it may not read, noted.
    expect(post.summary).toContain(`# Diagnostics: lease ${ns.name}/${leaseName}`);
    expect(post.summary).toContain(`### ClusterLease ${ns.name}/${leaseName}`);
    expect(post.summary).toMatch(/Phase: \*\*Bound\*\*/);
    expect(post.summary).toContain('not readable with these credentials (Forbidden)');
    expect(post.summary).not.toContain(access.token);
    expect(post.log).toContain(`wrote the diagnostics of ClusterLease ${ns.name}/${leaseName}`);
    expect(post.summary.indexOf('# Diagnostics')).toBeLessThan(
      post.summary.indexOf('Held ClusterLease'),
    );

    // The commands work as that identity: it may read the lease's kubeconfig Secret.
    const ci = `system:serviceaccount:${ns.name}:guestcluster-ci`;
    expect(await canI(ns.name, ci, 'get', `secret/${leaseName}-kubeconfig`)).toBe(true);

    // The end of the hold is the lease's TTL: the operator releases it then.
    clock.advance(holdEnd - clock.now());
    await gone(leaseName);
    const instance = held.status!.instanceRef!.name!;
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: instance,
      until: (i) => i === undefined,
      description: 'the held instance to be released',
    });
  });
});
