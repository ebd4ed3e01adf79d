import { mkdtemp, readFile, rm, stat, watch } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { JOBS } from '../../client/api/core-resources.js';
import { LABEL_CLUSTER_INSTANCE, LABEL_POOL } from '../../operator/api/labels.js';
import { DATA_VOLUMES, VIRTUAL_MACHINES } from '../../operator/api/platform-resources.js';
import type { ClusterInstance, ClusterLease, VersionStream } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS, VERSION_STREAMS } from '../../client/api/resources.js';
import { findCondition } from '../../operator/api/conditions.js';
import { LOCAL_STREAM } from '../../dev/local/local-update-service.js';
import { releaseImage } from '../../dev/platform/update-service/update-service-stand-in.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { ActionJob } from '../support/runners/action-runner.js';
import { CommandFailedError, runCommand } from '../../dev/control-plane/run-command.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import type { LocalState } from '../../dev/local/local-state.js';

const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
const NAMESPACE = 'ci';
/** The first start builds nothing (the binaries are cached) but boots three guests and a bundle. */
const LEASE_TIMEOUT_MS = 240_000;

const isAlive = (pid: number | undefined): boolean => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

let localDir = '';
let state: LocalState;
let admin: KubeConfig;
let api: ApiClient;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, GUESTCLUSTER_LOCAL_DIR: localDir });
const guestcluster = (...args: string[]): ReturnType<typeof runCommand> =>
  runCommand(process.execPath, [cli, ...args], { env: env() });
const readState = async (): Promise<LocalState> =>
  JSON.parse(await readFile(path.join(localDir, 'state.json'), 'utf8')) as LocalState;

/** kubectl with a leased cluster's kubeconfig: Route hosts resolve through the local router. */
const guestKubectl = (kubeconfig: string, ...args: string[]): ReturnType<typeof runCommand> =>
  runCommand(path.join(state.binDir, 'kubectl'), ['--kubeconfig', kubeconfig, ...args], {
    env: { ...process.env, HTTPS_PROXY: state.demo!.proxy, NO_PROXY: '' },
  });

beforeAll(async () => {
  localDir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-local-'));
});

afterAll(async () => {
  // Leave nothing running, even when an assertion failed half-way.
  await guestcluster('local', 'down').catch(() => undefined);
  await api?.close();
  await rm(localDir, { recursive: true, force: true });
});

/** Unclaimed Ready instances of a pool, once there are `count` of them (the pool topped up). */
const toppedUp = (pool: string, count: number, besides: string): Promise<ClusterInstance[]> =>
  waitForList<ClusterInstance>(admin, {
    type: INSTANCES,
    namespace: NAMESPACE,
    labelSelector: `${LABEL_POOL}=${pool}`,
    until: (all) =>
      all.filter(
        (i) => i.status?.phase === 'Ready' && !i.status.leaseRef && i.metadata!.name !== besides,
      ).length >= count,
    description: `pool ${pool} to have ${count} unclaimed Ready instance(s) again`,
    timeoutMs: LEASE_TIMEOUT_MS,
  });

describe('the local environment', () => {
  it('starts in the background: control plane, simulated platform, operator and samples', async () => {
    const up = await guestcluster('local', 'up');
    expect(up.stdout).toContain('The local environment is up');
    const kubeconfig = path.join(localDir, 'kubeconfig');
    expect(up.stdout).toContain(`kubeconfig:  ${kubeconfig}`);
    expect(up.stdout).toContain('namespace:   ci (pools crc-pool, hcp-pool, hcp-stream-pool)');
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);
    state = await readState();
    expect(state.demo).toEqual({
      namespace: NAMESPACE,
      pools: ['crc-pool', 'hcp-pool', 'hcp-stream-pool'],
      proxy: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    admin = new KubeConfig();
    admin.loadFromFile(kubeconfig);
    api = new ApiClient(admin);
    const pools = await api.list(POOLS, { namespace: NAMESPACE });
    expect(pools.items.map((p) => p.metadata!.name).sort()).toEqual([
      'crc-pool',
      'hcp-pool',
      'hcp-stream-pool',
    ]);

    const status = await guestcluster('local', 'status');
    expect(status.stdout).toMatch(/kube-apiserver\s+pid \d+\s+running/);
    expect(status.stdout).toMatch(/operator\s+pid \d+\s+running/);
    const again = await guestcluster('local', 'up');
    expect(again.stdout).toContain(`already running (pid ${state.pid})`);
  });

  it('resolves its VersionStream through its update-service stand-in and CRC mirror', async () => {
    const stream = await waitFor<VersionStream>(admin, {
      type: VERSION_STREAMS,
      name: LOCAL_STREAM.name,
      until: (s) => findCondition(s?.status?.conditions, 'Resolved')?.reason === 'Resolved',
      description: `VersionStream ${LOCAL_STREAM.name} to be resolved`,
    });
    expect(stream!.status).toMatchObject({
      resolvedVersion: LOCAL_STREAM.resolvedVersion,
      releaseImage: releaseImage(LOCAL_STREAM.resolvedVersion, 'amd64'),
      crcBundleVersion: '4.16.0',
    });
  });

  it("gives the pool that follows the stream an instance of the stream's release", async () => {
    const [instance] = await toppedUp('hcp-stream-pool', 1, '');
    expect(instance!.spec.template).toMatchObject({
      releaseImage: releaseImage(LOCAL_STREAM.resolvedVersion, 'amd64'),
      ocpVersion: LOCAL_STREAM.resolvedVersion,
    });
    // The hosted cluster reports the version its digest-pinned release carries.
    expect(instance!.status?.ocpVersion).toBe(LOCAL_STREAM.resolvedVersion);
  });

  for (const [pool, topology, warm] of [
    ['crc-pool', 'crc', 2],
    ['hcp-pool', 'hcp', 1],
  ] as const) {
    it(
      `runs the Action's committed bundle on a ${topology} lease: KUBECONFIG works, post releases, the pool tops up`,
      async () => {
        const job = await ActionJob.create({ GITHUB_RUN_ID: `${Date.now()}` });
        const inputs = {
          'management-kubeconfig': await readFile(state.kubeconfig, 'utf8'),
          namespace: NAMESPACE,
          pool,
          'expected-topology': topology,
          timeout: '4m',
        };
        const main = await job.main(inputs).done;
        expect(main.exitCode).toBe(0);
        expect(main.outputs.topology).toBe(topology);
        const file = main.exportedEnv.KUBECONFIG!;
        const nodes = await guestKubectl(file, 'get', 'nodes', '-o', 'name');
        expect(nodes.stdout.trim().split('\n')).toContain('node/crc');
        const instance = main.outputs.instance!;

        const post = await job.post(inputs);
        expect(post.exitCode).toBe(0);
        expect(post.log).toContain(
          `Released ClusterLease ${NAMESPACE}/${main.outputs['lease-name']}`,
        );
        await waitFor(admin, {
          type: INSTANCES,
          namespace: NAMESPACE,
          name: instance,
          until: (i) => i === undefined,
          description: `the released instance ${instance} to be deleted`,
          timeoutMs: LEASE_TIMEOUT_MS,
        });
        await toppedUp(pool, warm, instance);
      },
      2 * LEASE_TIMEOUT_MS + 60_000,
    );
  }

  it('hands out a `local lease` kubeconfig that answers kubectl alone, with no proxy variable', async () => {
    const leased = await guestcluster('local', 'lease', '--pool', 'hcp-pool');
    const file = /kubeconfig: (\S+)/.exec(leased.stdout)![1]!;
    expect(leased.stdout).not.toContain('HTTPS_PROXY');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const noProxy = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(https?|all|no)_proxy$/i.test(name)),
    );
    const nodes = await runCommand(
      path.join(state.binDir, 'kubectl'),
      ['--kubeconfig', file, 'get', 'nodes', '-o', 'name'],
      { env: noProxy },
    );
    expect(nodes.stdout.trim().split('\n')).toContain('node/crc');
    // The operator's published kubeconfig stays without it.
    const name = path.basename(file, '.kubeconfig');
    const secret = await api.get<KubeObject & { data?: Record<string, string> }>(
      SECRETS,
      `${name}-kubeconfig`,
      NAMESPACE,
    );
    expect(Buffer.from(secret.data!.kubeconfig!, 'base64').toString()).not.toContain('proxy-url');
    await api.delete(LEASES, name, NAMESPACE);
  });

  it(
    'completes 20 parallel leases on a pool of at most 5, binding no instance twice',
    async () => {
      await api.create(POOLS, hcpPool(NAMESPACE, 'burst', { maxSize: 5, warmSpares: 0 }));
      // Not burst-<n>, the instances' names: the lease's Secret <lease>-kubeconfig would be theirs.
      const names = Array.from({ length: 20 }, (_, i) => `job-${i}`);
      const boundTo = new Map<string, string>();
      let mostInstances = 0;
      const watching = new AbortController();
      const instances = new Set<string>();
      const { resourceVersion } = await api.list(INSTANCES, { namespace: NAMESPACE });
      void api
        .watch<ClusterInstance>(
          INSTANCES,
          { namespace: NAMESPACE, resourceVersion, labelSelector: `${LABEL_POOL}=burst` },
          (event) => {
            // A bookmark names no instance: counted, it made a sixth one of a watch past a minute.
            if (event.type === 'BOOKMARK') return;
            const uid = event.object.metadata!.uid!;
            if (event.type === 'DELETED') instances.delete(uid);
            else instances.add(uid);
            mostInstances = Math.max(mostInstances, instances.size);
          },
          watching.signal,
        )
        .catch(() => undefined);
      try {
        await Promise.all(names.map((name) => api.create(LEASES, lease(NAMESPACE, name, 'burst'))));
        // Each job uses its cluster, then releases it: the next leases bind the replacements.
        await Promise.all(
          names.map(async (name) => {
            const bound = await waitFor<ClusterLease>(admin, {
              type: LEASES,
              namespace: NAMESPACE,
              name,
              until: (l) => l?.status?.phase === 'Bound',
              description: `lease ${name} to be Bound`,
              timeoutMs: LEASE_TIMEOUT_MS,
            });
            const instance = await api.get<ClusterInstance>(
              INSTANCES,
              bound!.status!.instanceRef!.name!,
              NAMESPACE,
            );
            expect(instance.status?.leaseRef?.name).toBe(name);
            boundTo.set(name, instance.metadata!.uid!);
            await api.delete(LEASES, name, NAMESPACE);
          }),
        );
      } finally {
        watching.abort();
      }
      expect(boundTo.size).toBe(20);
      // Released instances are deleted, never handed out again: 20 binds, 20 instances.
      expect(new Set(boundTo.values()).size).toBe(20);
      expect(mostInstances).toBeLessThanOrEqual(5);
      await api.delete(POOLS, 'burst', NAMESPACE);
    },
    2 * LEASE_TIMEOUT_MS,
  );

  it(
    'completes every lease when the operator is killed mid-provisioning, and orphans nothing',
    async () => {
      const names = ['restart-0', 'restart-1', 'restart-2'];
      await Promise.all(
        names.map((name) => api.create(LEASES, lease(NAMESPACE, name, 'crc-pool'))),
      );
      // Two leases take the warm spares; the third waits for an instance that is being built.
      await waitForList<ClusterInstance>(admin, {
        type: INSTANCES,
        namespace: NAMESPACE,
        labelSelector: `${LABEL_POOL}=crc-pool`,
        until: (all) =>
          all.some((i) => i.status?.phase === 'Provisioning' && !!i.status.crc?.vmName),
        description: 'a crc instance in provisioning',
        timeoutMs: LEASE_TIMEOUT_MS,
      });
      const killed = (await readState()).components.operator!;
      process.kill(killed, 'SIGKILL');
      const restarted = await waitForState(
        (s) => !!s.components.operator && s.components.operator !== killed,
      );
      expect(isAlive(restarted.components.operator)).toBe(true);

      for (const name of names)
        await waitFor<ClusterLease>(admin, {
          type: LEASES,
          namespace: NAMESPACE,
          name,
          until: (l) => l?.status?.phase === 'Bound',
          description: `lease ${name} to be Bound after the restart`,
          timeoutMs: LEASE_TIMEOUT_MS,
        });
      await Promise.all(names.map((name) => api.delete(LEASES, name, NAMESPACE)));
      await waitForList<ClusterLease>(admin, {
        type: LEASES,
        namespace: NAMESPACE,
        until: (all) => all.length === 0,
        description: 'every lease to be released',
        timeoutMs: LEASE_TIMEOUT_MS,
      });

      // Nothing belongs to an instance that no longer exists.
      const live = new Set(
        (await api.list<ClusterInstance>(INSTANCES, { namespace: NAMESPACE })).items.map(
          (i) => i.metadata!.name!,
        ),
      );
      for (const type of [VIRTUAL_MACHINES, DATA_VOLUMES, JOBS, SECRETS]) {
        const orphans = (await api.list<KubeObject>(type, { namespace: NAMESPACE })).items.filter(
          (o) => {
            const instance = o.metadata?.labels?.[LABEL_CLUSTER_INSTANCE];
            return instance !== undefined && !live.has(instance);
          },
        );
        // Objects of a released instance may still be going away with it: only those that stay count.
        for (const orphan of orphans)
          await waitFor(admin, {
            type,
            namespace: NAMESPACE,
            name: orphan.metadata!.name!,
            until: (o) => o === undefined,
            description: `${type.kind} ${orphan.metadata!.name} of a deleted instance to go`,
            timeoutMs: LEASE_TIMEOUT_MS,
          });
      }
      // The leases' kubeconfig Secrets go with them (garbage collection).
      await waitForList<KubeObject>(admin, {
        type: SECRETS,
        namespace: NAMESPACE,
        until: (all) => !all.some((s) => names.some((name) => s.metadata!.name!.startsWith(name))),
        description: "the released leases' kubeconfig Secrets to go",
      });
    },
    3 * LEASE_TIMEOUT_MS,
  );

  it("ran the operator with its Deployment's ServiceAccount without a refused request", async () => {
    const log = await readFile(path.join(state.logs, 'operator.log'), 'utf8');
    expect(log).toContain('"msg":"Started the operator"');
    expect(log.split('\n').filter((line) => /forbidden/i.test(line))).toEqual([]);
  });

  it('stops without leftovers', async () => {
    const last = await readState();
    const down = await guestcluster('local', 'down');
    expect(down.stdout).toContain('The local environment is stopped.');
    const pids = [last.pid, ...Object.values(last.components)];
    expect(pids.filter(isAlive)).toEqual([]);
    await expect(stat(path.join(localDir, 'kubeconfig'))).rejects.toThrow('ENOENT');
    const stopped = await guestcluster('local', 'status').catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(CommandFailedError);
    expect((stopped as CommandFailedError).stdout).toContain(
      'The local environment is not running',
    );
  });
});

/** The state file once `until` holds; it is rewritten when a component (the operator) restarts. */
async function waitForState(until: (state: LocalState) => boolean): Promise<LocalState> {
  const changes = watch(localDir, { signal: AbortSignal.timeout(60_000) });
  const satisfied = async (): Promise<LocalState | undefined> => {
    // A half-written file is read again at its next change.
    const current = await readState().catch(() => undefined);
    return current && until(current) ? current : undefined;
  };
  const now = await satisfied();
  if (now) return now;
  try {
    for await (const change of changes) {
      if (change.filename !== 'state.json') continue;
      const current = await satisfied();
      if (current) return current;
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
  throw new Error('the local state did not change within 60s');
}
