import { mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { ROLE_BINDINGS, ROLES } from '../../client/api/core-resources.js';
import {
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { canI } from '../support/tenant.js';
import { testEnv } from '../support/test-env.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { ApiProxy } from '../support/api-proxy.js';
import type { StepResult } from '../support/runners/action-runner.js';
import { ActionJob } from '../support/runners/action-runner.js';
import type { CiAccess } from './ci-identity.js';
import { ciIdentity } from './ci-identity.js';

const world = useWorld({ namespace: 'action', enabled: true });
const { ns } = world;

let access: CiAccess;
let guestKubeconfig: string;
let manager: Manager;
let runCounter = 0;

/** A job of its own run (so default lease names differ between tests). */
function newJob(env: Record<string, string> = {}): Promise<ActionJob> {
  runCounter += 1;
  return ActionJob.create({ GITHUB_RUN_ID: `${Date.now()}${runCounter}`, ...env });
}

function inputs(pool: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'management-server': access.server,
    'management-token': access.token,
    'management-certificate-authority': access.ca,
    namespace: ns.name,
    pool,
    ...extra,
  };
}

/** Pool `name` with one Ready instance whose kubeconfig works (the test cluster plays the guest). */
async function poolWithReadyInstance(name: string): Promise<void> {
  await ns.api.create(POOLS, hcpPool(ns.name, name, { maxSize: 2 }));
  await createPoolInstance(ns.api, poolInstance(ns.name, name, `${name}-0`));
  await settleInstance(ns.api, ns.name, `${name}-0`, 'Ready', guestKubeconfig);
}

async function leaseGone(name: string): Promise<void> {
  await waitFor<ClusterLease>(ns.kubeConfig, {
    type: LEASES,
    name,
    namespace: ns.name,
    until: (lease) => lease === undefined,
  });
}

/** No credential ever reaches the visible log, and each was registered for masking. */
function expectNoSecretsLogged(result: StepResult): void {
  const keyData = /client-key-data: (\S+)/.exec(guestKubeconfig)![1]!;
  for (const secret of [access.token, guestKubeconfig, keyData])
    expect(result.log).not.toContain(secret);
  expect(result.log).not.toContain('PRIVATE KEY');
  expect(result.masks).toContain(access.token);
}

describe('the GitHub Action, run from its committed bundles', () => {
  beforeAll(async () => {
    access = await ciIdentity(ns);
    guestKubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
    manager = await world.startOperator();
  });
  afterAll(async () => {
    // Leases carry the release finalizer, pools their protection: both go with the manager running.
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it('leases a cluster, exports a working KUBECONFIG, and post releases it', async () => {
    await poolWithReadyInstance('ready');
    const job = await newJob();
    const main = await job.main(
      inputs('ready', {
        'expected-topology': 'hcp',
        'expected-ocp-version': '4.16',
        // What the runner makes of the input's default, ${{ job.check_run_id }}, on github.com.
        'job-check-run-id': '51725241954',
      }),
    ).done;
    expect(main.exitCode).toBe(0);

    const leaseName = main.outputs['lease-name']!;
    expect(leaseName).toMatch(/^gh-\d+-1-[0-9a-f]{8}$/);
    expect(main.outputs).toMatchObject({
      topology: 'hcp',
      'ocp-version': '4.16.10',
      instance: 'ready-0',
      kubeconfig: path.join(job.runnerTemp, 'guestcluster', `${leaseName}.kubeconfig`),
    });
    expect(Number(main.outputs['wait-seconds'])).toBeGreaterThanOrEqual(0);
    const file = main.exportedEnv.KUBECONFIG!;
    expect(file).toBe(main.outputs.kubeconfig);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(await readFile(file, 'utf8')).toBe(guestKubeconfig);
    const nodes = await runCommand(testEnv('kubectl'), [
      '--kubeconfig',
      file,
      'get',
      'namespace',
      ns.name,
      '-o',
      'name',
    ]);
    expect(nodes.stdout.trim()).toBe(`namespace/${ns.name}`);
    expect(main.summary).toContain('ready-0');

    const lease = await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name);
    expect(lease.status?.phase).toBe('Bound');
    // The version was asked for, not only checked after binding.
    expect(lease.spec.ocpVersion).toBe('4.16');
    expect(lease.spec.requestedBy).toBe(
      `octo-org/app CI run ${lease.metadata!.annotations!['guestcluster.opdev.io/github-run-id']} attempt 1 job e2e`,
    );
    expect(lease.spec.ttl).toBe('6h');
    expect(lease.metadata?.annotations?.['guestcluster.opdev.io/github-run-url']).toMatch(
      /^https:\/\/github.com\/octo-org\/app\/actions\/runs\/\d+\/attempts\/1$/,
    );
    // The job's own id: the operator's GitHub check follows this job, not the whole attempt.
    expect(lease.metadata?.annotations?.['guestcluster.opdev.io/github-job-id']).toBe(
      '51725241954',
    );
    expectNoSecretsLogged(main);
    expect(main.masks).toContain(/client-key-data: (\S+)/.exec(guestKubeconfig)![1]);

    const post = await job.post(inputs('ready'));
    expect(post.exitCode).toBe(0);
    expect(post.log).toContain(`Released ClusterLease ${ns.name}/${leaseName}`);
    await expect(ns.api.get(LEASES, leaseName, ns.name)).rejects.toMatchObject({ status: 404 });
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      name: 'ready-0',
      namespace: ns.name,
      until: (i) => i === undefined,
    });
    expectNoSecretsLogged(post);
  });

  it("lets its own identity read its lease's kubeconfig and no other Secret (can-i matrix)", async () => {
    await poolWithReadyInstance('rbac');
    await createPoolInstance(ns.api, poolInstance(ns.name, 'rbac', 'rbac-1'));
    await settleInstance(ns.api, ns.name, 'rbac-1', 'Ready', guestKubeconfig);
    const job = await newJob();
    const main = await job.main(inputs('rbac')).done;
    expect(main.exitCode).toBe(0);
    const own = main.outputs['lease-name']!;
    const ci = `system:serviceaccount:${ns.name}:guestcluster-ci`;
    expect(main.log).toContain(
      `Lease kubeconfig readable by ServiceAccount ${ns.name}/guestcluster-ci`,
    );
    const leased = await ns.api.get<ClusterLease>(LEASES, own, ns.name);
    expect(leased.spec.subjects).toEqual([
      { kind: 'ServiceAccount', namespace: ns.name, name: 'guestcluster-ci' },
    ]);
    // Another job's lease in the namespace, for another identity.
    await ns.api.create(LEASES, {
      ...lease(ns.name, 'other-job', 'rbac'),
      spec: { poolRef: { name: 'rbac' }, subjects: [{ kind: 'User', name: 'someone-else' }] },
    });
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'other-job',
      until: (l) => l?.status?.phase === 'Bound',
    });
    const instance = leased.status!.instanceRef!.name!;
    const uid = (await ns.api.get<KubeObject>(INSTANCES, instance, ns.name)).metadata!.uid!;
    const can = (verb: string, resource: string): Promise<boolean> =>
      canI(ns.name, ci, verb, resource);
    expect(await can('get', `secret/${own}-kubeconfig`)).toBe(true);
    for (const name of [
      'other-job-kubeconfig',
      `${instance}-kubeconfig`,
      `${instance}-crc-identity`,
      `${instance}-crc-boot-key`,
      `${instance}-crc-raw-kubeconfig-${uid}`,
      'pull-secret',
    ])
      expect([name, await can('get', `secret/${name}`)]).toEqual([name, false]);
    for (const verb of ['list', 'watch', 'create'])
      expect([verb, await can(verb, 'secrets')]).toEqual([verb, false]);
    expect(await can('update', `secret/${own}-kubeconfig`)).toBe(false);
    for (const verb of ['create', 'get', 'watch', 'delete'])
      expect([verb, await can(verb, 'clusterleases')]).toEqual([verb, true]);
    expect(await can('update', 'clusterleases')).toBe(false);
    expect(await can('get', 'clusterpools')).toBe(true);
    expect(await can('get', 'clusterinstances')).toBe(false);
    expect(await canI(ns.name, 'someone-else', 'get', 'secret/other-job-kubeconfig')).toBe(true);
    expect(await canI(ns.name, 'someone-else', 'get', `secret/${own}-kubeconfig`)).toBe(false);

    expect((await job.post(inputs('rbac'))).exitCode).toBe(0);
    // The Role and RoleBinding went with the lease.
    for (const type of [ROLES, ROLE_BINDINGS])
      await waitFor(ns.kubeConfig, {
        type,
        namespace: ns.name,
        name: `${own}-kubeconfig`,
        until: (object) => object === undefined,
        description: `the lease's ${type.kind} to be garbage-collected`,
      });
    expect(await can('get', `secret/${own}-kubeconfig`)).toBe(false);
    await ns.api.delete(LEASES, 'other-job', ns.name);
    await leaseGone('other-job');
  });

  it('logs its progress while it waits, and binds when the pool has provisioned', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'slow', { maxSize: 1 }));
    const job = await newJob();
    const main = job.main(inputs('slow'));
    await main.logged('Pending, 1st in the queue of pool "slow"');
    // The pool controller created an instance for the waiting lease; play its controller.
    const [instance] = await waitForList<KubeObject>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=slow',
      until: (items) => items.length === 1,
      description: 'the instance pool "slow" creates for the waiting lease',
    });
    await settleInstance(ns.api, ns.name, instance!.metadata!.name!, 'Ready', guestKubeconfig);
    const result = await main.done;
    expect(result.exitCode).toBe(0);
    // A line for each change of the lease and of its pool, as they happen.
    expect(result.log).toContain(
      'ClusterLease ' +
        result.outputs['lease-name'] +
        ': Pending, 1st in the queue of pool "slow" (WaitingForCapacity)',
    );
    expect(result.log).toMatch(/ClusterPool slow: 0 ready, 0 leased, [01] of at most 1 instances/);
    expect(result.log).toContain(`Bound to ClusterInstance ${instance!.metadata!.name}`);
    expect((await job.post(inputs('slow'))).exitCode).toBe(0);
  });

  it('binds a lease whose pool appears within the grace', async () => {
    const job = await newJob();
    const main = job.main(inputs('appears'));
    await main.logged('(PoolNotFound)');
    await ns.api.create(POOLS, hcpPool(ns.name, 'appears', { maxSize: 1 }));
    // The pool provisions an instance for the waiting lease; play its controller.
    const [instance] = await waitForList<KubeObject>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=appears',
      until: (items) => items.length === 1,
      description: 'the instance pool "appears" creates for the waiting lease',
    });
    await settleInstance(ns.api, ns.name, instance!.metadata!.name!, 'Ready', guestKubeconfig);
    const result = await main.done;
    expect(result.exitCode).toBe(0);
    expect(result.outputs.instance).toBe('appears-0');
    expect((await job.post(inputs('appears'))).exitCode).toBe(0);
  });

  it('post releases the lease by its name when the response to its create was lost, and a second post is harmless', async () => {
    await poolWithReadyInstance('lost-reply');
    // The management cluster behind a proxy that delivers the create and drops its answer.
    const proxy = await ApiProxy.start();
    const creates = `/apis/guestcluster.opdev.io/v1alpha1/namespaces/${ns.name}/clusterleases`;
    let dropped = false;
    proxy.route = (request) => {
      if (request.method !== 'POST' || !request.path.startsWith(creates) || dropped)
        return { kind: 'forward' };
      dropped = true;
      return { kind: 'drop-response' };
    };
    try {
      const behindProxy = {
        'management-kubeconfig': proxy.kubeconfig(access.token),
        namespace: ns.name,
        pool: 'lost-reply',
      };
      const job = await newJob();
      const main = await job.main(behindProxy).done;
      expect(main.exitCode).toBe(1);
      const name = main.state['lease-name']!;
      expect(main.state['lease-uid']).toBe('');
      // The apiserver did create it: only its answer got lost.
      const leaked = await ns.api.get<ClusterLease>(LEASES, name, ns.name);
      expect(leaked.metadata?.annotations?.['guestcluster.opdev.io/github-run-id']).toBeDefined();

      const post = await job.post(behindProxy);
      expect(post.exitCode).toBe(0);
      expect(post.log).toContain(`Released ClusterLease ${ns.name}/${name}`);
      await leaseGone(name);
      const again = await job.post(behindProxy);
      expect(again.exitCode).toBe(0);
      expect(again.log).toContain(`Already released ClusterLease ${ns.name}/${name}`);
      expect(again.log).not.toContain('::warning::');
    } finally {
      await proxy.stop();
    }
  });

  it('post tries the release again when the apiserver fails it', async () => {
    await poolWithReadyInstance('flaky-api');
    const proxy = await ApiProxy.start();
    const leases = `/apis/guestcluster.opdev.io/v1alpha1/namespaces/${ns.name}/clusterleases/`;
    let refused = 0;
    proxy.route = (request) => {
      if (request.method !== 'DELETE' || !request.path.startsWith(leases) || refused >= 2)
        return { kind: 'forward' };
      refused += 1;
      return {
        kind: 'answer',
        status: 503,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 503,
          message: 'etcd is not ready',
        },
      };
    };
    try {
      const behindProxy = {
        'management-kubeconfig': proxy.kubeconfig(access.token),
        namespace: ns.name,
        pool: 'flaky-api',
      };
      const job = await newJob();
      const main = await job.main(behindProxy).done;
      expect(main.exitCode).toBe(0);
      const name = main.outputs['lease-name']!;
      const post = await job.post(behindProxy);
      expect(post.exitCode).toBe(0);
      expect(post.log).toContain(
        `Releasing ClusterLease ${ns.name}/${name} failed (etcd is not ready); try 2 in 1s`,
      );
      expect(post.log).toContain(
        `Releasing ClusterLease ${ns.name}/${name} failed (etcd is not ready); try 3 in 2s`,
      );
      expect(post.log).toContain(`Released ClusterLease ${ns.name}/${name}`);
      await leaseGone(name);
    } finally {
      await proxy.stop();
    }
  });

  it("fails with the lease's reason and deletes a lease that can never bind: no pool, or no such version", async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'other-version', { maxSize: 1 }));
    const [job, versionJob] = await Promise.all([newJob(), newJob()]);
    // Both wait out the same grace at once.
    const [main, versionMain] = await Promise.all([
      job.main(inputs('no-such-pool')).done,
      versionJob.main(inputs('other-version', { 'expected-ocp-version': '4.17' })).done,
    ]);
    expect(main.exitCode).toBe(1);
    expect(main.log).toMatch(
      /::error::ClusterLease .* failed: PoolNotFound: ClusterPool "no-such-pool" does not exist in namespace "[^"]+" \(waited 15s for it\)/,
    );
    await leaseGone(main.state['lease-name']!);
    const post = await job.post(inputs('no-such-pool'));
    expect(post.exitCode).toBe(0);
    expect(post.log).toContain('Already released');

    expect(versionMain.exitCode).toBe(1);
    expect(versionMain.log).toContain(
      'failed: VersionUnavailable: ClusterPool "other-version" offers OpenShift 4.16.10 (spec.template.ocpVersion) and has no unclaimed instance of 4.17',
    );
    expect(versionMain.log).toContain('(waited 15s for it)');
    await leaseGone(versionMain.state['lease-name']!);
  });

  it('releases the lease when it is not bound within the timeout', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'stuck', { maxSize: 1 }));
    const job = await newJob();
    const main = await job.main(inputs('stuck', { timeout: '2s' })).done;
    expect(main.exitCode).toBe(1);
    expect(main.log).toContain('was not bound within 2s (input "timeout"); it was Pending');
    await leaseGone(main.state['lease-name']!);
  });

  it('releases the lease when the run is cancelled while it waits', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'cancelled', { maxSize: 1 }));
    const job = await newJob();
    const main = job.main(inputs('cancelled'));
    await main.logged('Pending, 1st in the queue');
    main.signal('SIGINT');
    const result = await main.done;
    expect(result.exitCode).toBe(1);
    expect(result.log).toContain('The run was cancelled while');
    await leaseGone(result.state['lease-name']!);
  });

  it('reuses its own lease when the step is retried, and refuses a lease of another job', async () => {
    await poolWithReadyInstance('retry');
    const job = await newJob();
    const first = await job.main(inputs('retry')).done;
    expect(first.exitCode).toBe(0);
    const second = await job.main(inputs('retry')).done;
    expect(second.exitCode).toBe(0);
    expect(second.log).toContain('from an earlier try of this step; using it');
    expect(second.outputs['lease-name']).toBe(first.outputs['lease-name']);
    expect(second.outputs.instance).toBe('retry-0');

    const other = await newJob({ GITHUB_JOB: 'other' });
    const refused = await other.main(
      inputs('retry', { 'lease-name': first.outputs['lease-name']! }),
    ).done;
    expect(refused.exitCode).toBe(1);
    expect(refused.log).toMatch(
      /already exists and belongs to another job: run \d+ attempt 1, job "e2e", runner "GitHub Actions 7"; this step runs in run \d+ attempt 1, job "other"/,
    );
    // Post of the refused job releases nothing: its main created no lease.
    expect((await other.post(inputs('retry'))).log).toContain('created no lease');
    const lease = await ns.api.get<ClusterLease>(LEASES, first.outputs['lease-name']!, ns.name);
    expect(lease.status?.phase).toBe('Bound');
    expect((await job.post(inputs('retry'))).exitCode).toBe(0);
  });

  it('writes no kubeconfig through a link planted where its folder goes, and post releases the lease', async () => {
    await poolWithReadyInstance('planted');
    const job = await newJob();
    const planted = path.join(job.workDir, 'planted');
    await mkdir(planted);
    await mkdir(job.runnerTemp, { recursive: true });
    await symlink(planted, path.join(job.runnerTemp, 'guestcluster'));
    const main = await job.main(inputs('planted')).done;
    expect(main.exitCode).toBe(1);
    expect(main.log).toContain(
      `::error::Could not write the guest kubeconfig: ${path.join(job.runnerTemp, 'guestcluster')} is a symbolic link, not a folder; refusing to follow it`,
    );
    expect(await readdir(planted)).toEqual([]);
    expect(main.exportedEnv.KUBECONFIG).toBeUndefined();
    const post = await job.post(inputs('planted'));
    expect(post.log).toContain(`Released ClusterLease ${ns.name}/${main.state['lease-name']}`);
    await leaseGone(main.state['lease-name']!);
  });

  it('fails and releases on an unexpected topology, or only warns when told to', async () => {
    await poolWithReadyInstance('topology');
    const strict = await newJob();
    const failed = await strict.main(inputs('topology', { 'expected-topology': 'crc' })).done;
    expect(failed.exitCode).toBe(1);
    expect(failed.log).toContain('topology is "hcp", expected "crc"');
    await leaseGone(failed.state['lease-name']!);
    expect(failed.exportedEnv.KUBECONFIG).toBeUndefined();

    await createPoolInstance(ns.api, poolInstance(ns.name, 'topology', 'topology-1'));
    await settleInstance(ns.api, ns.name, 'topology-1', 'Ready', guestKubeconfig);
    const lenient = await newJob();
    const warned = await lenient.main(
      inputs('topology', { 'expected-topology': 'crc', 'on-mismatch': 'warn' }),
    ).done;
    expect(warned.exitCode).toBe(0);
    expect(warned.log).toContain('::warning::The leased cluster does not match');
    expect((await lenient.post(inputs('topology'))).exitCode).toBe(0);
  });

  it('refuses a bad input before it creates anything, naming the input', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'bad-input', { maxSize: 1 }));
    const job = await newJob();
    const main = await job.main(inputs('bad-input', { ttl: 'soon' })).done;
    expect(main.exitCode).toBe(1);
    expect(main.log).toContain('::error::Input "ttl" is "soon"');
    const leases = await ns.api.list<ClusterLease>(LEASES, { namespace: ns.name });
    expect(leases.items.filter((lease) => lease.spec.poolRef.name === 'bad-input')).toEqual([]);
    const post = await job.post(inputs('bad-input'));
    expect(post.exitCode).toBe(0);
    expect(post.log).toContain('The main step created no lease; nothing to release.');
  });

  it('takes the management cluster as a kubeconfig too', async () => {
    await poolWithReadyInstance('kubeconfig');
    const job = await newJob();
    const { server, ca, token } = access;
    const managementKubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'current-context: ci',
      `clusters: [{name: mgmt, cluster: {server: "${server}", certificate-authority-data: ${ca}}}]`,
      `users: [{name: ci, user: {token: ${token}}}]`,
      `contexts: [{name: ci, context: {cluster: mgmt, user: ci, namespace: ${ns.name}}}]`,
    ].join('\n');
    const main = await job.main({
      'management-kubeconfig': managementKubeconfig,
      pool: 'kubeconfig',
    }).done;
    expect(main.exitCode).toBe(0);
    expect(main.outputs.instance).toBe('kubeconfig-0');
    expect(main.log).not.toContain(token);
    expect(main.masks).toEqual(expect.arrayContaining([managementKubeconfig, token]));
    expect(
      (await job.post({ 'management-kubeconfig': managementKubeconfig, pool: 'kubeconfig' }))
        .exitCode,
    ).toBe(0);
  });
});
