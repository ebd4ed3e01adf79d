import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { waitFor } from '../../dev/support/wait-for.js';
import {
  hcpPool,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
} from '../support/fixtures/pool-fixtures.js';
import { ApiProxy } from '../support/api-proxy.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import { ActionJob } from '../support/runners/action-runner.js';
import type { CiAccess } from './ci-identity.js';
import { actionInputs, ciIdentity } from './ci-identity.js';

const world = useWorld({ namespace: 'lease-owner', enabled: true });
const { ns } = world;
const POOL = 'legs';

/**
 * One leg of the matrix job "e2e": its runner's environment, and what the runner makes of the
 * inputs' defaults (job.check_run_id, strategy.job-index, toJSON(matrix)).
 */
interface Leg {
  runner: string;
  jobId: string;
  index: string;
  os: string;
}

const LEG_0: Leg = {
  runner: 'GitHub Actions 11',
  jobId: '51725241954',
  index: '0',
  os: 'ubuntu-24.04',
};
const LEG_1: Leg = {
  runner: 'GitHub Actions 12',
  jobId: '51725241955',
  index: '1',
  os: 'ubuntu-22.04',
};

describe('a lease belongs to one job: two legs given the same lease-name (committed bundles)', () => {
  let access: CiAccess;
  let manager: Manager;
  let runs = 0;

  beforeAll(async () => {
    access = await ciIdentity(ns);
    await ns.api.create(POOLS, hcpPool(ns.name, POOL, { maxSize: 2 }));
    const kubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
    for (const n of [0, 1]) {
      await ns.api.create(INSTANCES, poolInstance(ns.name, POOL, `${POOL}-${n}`));
      await settleInstance(ns.api, ns.name, `${POOL}-${n}`, 'Ready', kubeconfig);
    }
    manager = await world.startOperator();
  });
  afterAll(async () => {
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  /** Both legs of one run of the workflow, each on its own runner. */
  async function legs(): Promise<{ runId: string; jobs: [ActionJob, ActionJob] }> {
    runs += 1;
    const runId = `${Date.now()}${runs}`;
    const job = (leg: Leg): Promise<ActionJob> =>
      ActionJob.create({ GITHUB_RUN_ID: runId, GITHUB_JOB: 'e2e', RUNNER_NAME: leg.runner });
    return { runId, jobs: [await job(LEG_0), await job(LEG_1)] };
  }

  const inputs = (leg: Leg, leaseName: string): Record<string, string> =>
    actionInputs(access, ns.name, POOL, {
      'lease-name': leaseName,
      'job-check-run-id': leg.jobId,
      'job-index': leg.index,
      matrix: JSON.stringify({ os: leg.os }, null, 2),
    });

  const leaseNamed = (name: string): Promise<ClusterLease> =>
    ns.api.get<ClusterLease>(LEASES, name, ns.name);

  it('the first leg owns the lease; the second fails naming it, and its post releases nothing', async () => {
    const { runId, jobs } = await legs();
    const [first, second] = jobs;
    const owned = await first.main(inputs(LEG_0, 'shared-e2e')).done;
    expect({ exitCode: owned.exitCode, log: owned.log }).toMatchObject({ exitCode: 0 });
    const uid = (await leaseNamed('shared-e2e')).metadata!.uid!;

    const refused = await second.main(inputs(LEG_1, 'shared-e2e')).done;
    expect(refused.exitCode).toBe(1);
    expect(refused.log).toContain(
      `::error::ClusterLease ${ns.name}/shared-e2e already exists and belongs to another job: run ${runId} attempt 1, job "e2e", matrix leg 0 (os: ubuntu-24.04), job id 51725241954, runner "GitHub Actions 11"; this step runs in run ${runId} attempt 1, job "e2e", matrix leg 1 (os: ubuntu-22.04), job id 51725241955, runner "GitHub Actions 12".`,
    );
    expect(refused.exportedEnv.KUBECONFIG).toBeUndefined();
    await expect(readdir(path.join(second.runnerTemp, 'guestcluster'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    const post = await second.post(inputs(LEG_1, 'shared-e2e'));
    expect(post.log).toContain('The main step created no lease; nothing to release.');
    const kept = await leaseNamed('shared-e2e');
    expect({ uid: kept.metadata?.uid, phase: kept.status?.phase }).toEqual({ uid, phase: 'Bound' });

    // A retried step of the first leg still knows its lease; its post releases it.
    const again = await first.main(inputs(LEG_0, 'shared-e2e')).done;
    expect(again.exitCode).toBe(0);
    expect(again.log).toContain('from an earlier try of this step; using it');
    const released = await first.post(inputs(LEG_0, 'shared-e2e'));
    expect(released.log).toContain(`Released ClusterLease ${ns.name}/shared-e2e`);
  });

  it("a leg whose main never learnt the lease's UID releases no other leg's lease in post", async () => {
    const { jobs } = await legs();
    const [first, second] = jobs;
    expect((await first.main(inputs(LEG_0, 'shared-lost')).done).exitCode).toBe(0);
    const uid = (await leaseNamed('shared-lost')).metadata!.uid!;

    // The second leg's read of the existing lease fails: main stops with only the name saved.
    const proxy = await ApiProxy.start();
    const lease = `/apis/guestcluster.opdev.io/v1alpha1/namespaces/${ns.name}/clusterleases/shared-lost`;
    proxy.route = (request) =>
      request.method === 'GET' && request.path.startsWith(lease)
        ? {
            kind: 'answer',
            status: 503,
            body: { kind: 'Status', code: 503, message: 'etcd is not ready' },
          }
        : { kind: 'forward' };
    try {
      const behindProxy = {
        ...inputs(LEG_1, 'shared-lost'),
        'management-server': '',
        'management-token': '',
        'management-certificate-authority': '',
        'management-kubeconfig': proxy.kubeconfig(access.token),
      };
      const main = await second.main(behindProxy).done;
      expect(main.exitCode).toBe(1);
      expect(main.state).toMatchObject({ 'lease-name': 'shared-lost', 'lease-uid': '' });
    } finally {
      await proxy.stop();
    }
    const post = await second.post(inputs(LEG_1, 'shared-lost'));
    expect(post.log).toContain(
      `Left alone (the name now belongs to another lease): ClusterLease ${ns.name}/shared-lost`,
    );
    const kept = await leaseNamed('shared-lost');
    expect({ uid: kept.metadata?.uid, phase: kept.status?.phase }).toEqual({ uid, phase: 'Bound' });

    expect((await first.post(inputs(LEG_0, 'shared-lost'))).exitCode).toBe(0);
    await waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'shared-lost',
      until: (l) => l === undefined,
      description: 'ClusterLease shared-lost to be released by its own leg',
    });
  });
});
