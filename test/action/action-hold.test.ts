import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
import type { RuntimeToken } from '../support/results-service-stand-in.js';
import { ResultsServiceStandIn } from '../support/results-service-stand-in.js';
import { zipEntries } from '../support/zip-entries.js';
import type { CiAccess } from './ci-identity.js';
import { actionInputs, ciIdentity } from './ci-identity.js';

const world = useWorld({ namespace: 'hold', enabled: true });
const { ns } = world;
const POOL = 'hold';

describe('the GitHub Action holds a failed job’s cluster (committed bundles)', () => {
  const clock = new TestClock();
  let access: CiAccess;
  let manager: Manager;
  let results: ResultsServiceStandIn;
  let caFile: string;
  let runs = 0;

  beforeAll(async () => {
    access = await ciIdentity(ns);
    // GitHub's artifact service, which the runner hands a step as ACTIONS_RESULTS_URL.
    results = await ResultsServiceStandIn.start();
    caFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'gc-results-')), 'ca.pem');
    await writeFile(caFile, results.ca);
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, POOL, { maxSize: 5, maxLeaseDuration: '2h', maxHoldDuration: '10m' }),
    );
    const kubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
    // One Ready instance per job of the file: no instance controller runs to make more.
    for (const n of [0, 1, 2, 3, 4]) {
      await createPoolInstance(ns.api, poolInstance(ns.name, POOL, `${POOL}-${n}`));
      await settleInstance(ns.api, ns.name, `${POOL}-${n}`, 'Ready', kubeconfig);
    }
    await installLeaseTtlPolicy(ns.api, ns.name, POOL);
    manager = await world.startOperator({ clock });
  });
  afterAll(async () => {
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
    await results?.stop();
  });

  /**
   * One job of its own run, on a runner with an artifact service (its runtime token, the service's
   * URL, and the service's CA trusted as a self-hosted runner's NODE_EXTRA_CA_CERTS would): main
   * leases a cluster with a hold on failure of 20m.
   */
  async function leasedJob(extra: Record<string, string> = {}): Promise<{
    job: ActionJob;
    leaseName: string;
    inputs: Record<string, string>;
    runtime: RuntimeToken;
  }> {
    runs += 1;
    const runtime = results.runtimeToken();
    const job = await ActionJob.create({
      GITHUB_RUN_ID: `${Date.now()}${runs}`,
      ACTIONS_RUNTIME_TOKEN: runtime.token,
      ACTIONS_RESULTS_URL: results.url,
      NODE_EXTRA_CA_CERTS: caFile,
    });
    const inputs = actionInputs(access, ns.name, POOL, {
      ttl: '1h',
      'hold-on-failure': '20m',
      ...extra,
    });
    const main = await job.main(inputs).done;
    expect({ exitCode: main.exitCode, log: main.log }).toMatchObject({ exitCode: 0 });
    return { job, leaseName: main.outputs['lease-name']!, inputs, runtime };
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
      expect(results.artifacts.map((a) => a.name)).not.toContain(
        `guestcluster-diagnostics-${leaseName}`,
      );
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

  it('warns and still releases the lease when the artifact service cannot be reached', async () => {
    const { job, leaseName, inputs, runtime } = await leasedJob({ 'hold-on-failure': '0' });
    const name = `guestcluster-diagnostics-${leaseName}`;
    results.failure = { kind: 'drop' };
    try {
      const post = await job.post({ ...inputs, 'job-status': 'failure' });
      expect(post.exitCode).toBe(0);
      const folder = path.join(job.runnerTemp, name);
      expect(post.log).toContain(
        `::warning::Could not upload the diagnostics of ClusterLease ${ns.name}/${leaseName} as artifact ${name}: Failed to CreateArtifact: Unable to make request: ECONNRESET`,
      );
      expect(post.log).toContain(`the files stay in ${folder}`);
      expect(await readFile(path.join(folder, 'diagnostics.md'), 'utf8')).toContain(
        `# Diagnostics: lease ${ns.name}/${leaseName}`,
      );
      expect(post.log).toContain(`Released ClusterLease ${ns.name}/${leaseName}`);
      expect(post.log).not.toContain(runtime.token);
      expect(results.artifacts.map((a) => a.name)).not.toContain(name);
    } finally {
      results.failure = undefined;
    }
    await gone(leaseName);
  });

  // Last: it moves the operator's clock past the hold.
  it('keeps a failed job’s lease for the hold, capped by the pool, says how to reach it, and the operator releases it at the end', async () => {
    const { job, leaseName, inputs, runtime } = await leasedJob();
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

    // The same files, uploaded as one artifact of this job for 7 days, before the hold.
    const name = `guestcluster-diagnostics-${leaseName}`;
    const artifact = results.finalized(name)!;
    expect(artifact).toMatchObject({
      runBackendId: runtime.runBackendId,
      jobBackendId: runtime.jobBackendId,
      mimeType: 'application/zip',
    });
    const days = (Date.parse(artifact.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    expect(artifact.size).toBe(artifact.blob!.length);
    expect(artifact.hash).toBe(
      `sha256:${createHash('sha256').update(artifact.blob!).digest('hex')}`,
    );
    const files = zipEntries(artifact.blob!);
    expect([...files.keys()].sort()).toEqual(['diagnostics.json', 'diagnostics.md']);
    const folder = path.join(job.runnerTemp, name);
    expect(files.get('diagnostics.md')!.toString()).toBe(
      await readFile(path.join(folder, 'diagnostics.md'), 'utf8'),
    );
    expect(files.get('diagnostics.md')!.toString()).toContain(
      `# Diagnostics: lease ${ns.name}/${leaseName}`,
    );
    const json = JSON.parse(files.get('diagnostics.json')!.toString()) as {
      target: { name: string };
      objects: { kind: string; name: string; phase?: string }[];
    };
    expect(json.target.name).toBe(leaseName);
    expect(json.objects).toContainEqual(
      expect.objectContaining({ kind: 'ClusterLease', name: leaseName, phase: 'Bound' }),
    );
    expect(post.log).toContain(
      `Uploaded the diagnostics of ClusterLease ${ns.name}/${leaseName} as artifact ${name} (id ${artifact.id}, ${artifact.size} bytes)`,
    );
    expect(post.log.indexOf(`as artifact ${name}`)).toBeLessThan(
      post.log.indexOf('Held ClusterLease'),
    );
    expect(post.log).not.toContain(runtime.token);
    expect(post.summary).not.toContain(runtime.token);

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
