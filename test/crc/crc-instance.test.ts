import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  JOBS,
  PODS,
  PVCS,
  ROLES,
  ROLE_BINDINGS,
  SERVICE_ACCOUNTS,
  SERVICES,
} from '../../client/api/core-resources.js';
import { FINALIZER_INSTANCE_CLEANUP, LABEL_CLUSTER_INSTANCE } from '../../operator/api/labels.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../operator/api/platform-resources.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import {
  agentAccountName,
  agentJobName,
  crcApiName,
  handoffSecretName,
} from '../../operator/controllers/clusterinstance/crc/crc-naming.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { clusterAccess } from '../../client/kube/cluster-access.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { lease } from '../support/fixtures/pool-fixtures.js';
import type {
  DataVolumeObject,
  VirtualMachineObject,
  VmiObject,
} from '../../dev/platform/host/platform-kinds.js';
import type { RouteObject } from '../../dev/platform/router/simulated-router.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { createCrcPrerequisites } from '../support/fixtures/crc-prerequisites.js';
import { ObjectHistory } from '../support/object-history.js';
import { coreApi } from '../support/client-node-clients.js';

const world = useWorld({
  namespace: 'crc-instance',
  enabled: true,
  platform: { crc: {} },
  operator: true,
});
const { ns } = world;
const POOL = 'crc';
const INSTANCE = `${POOL}-0`;
const RELEASE_IMAGE = 'https://mirror.example.test/crc/4.16.0/crc.qcow2';
/**
 * A crc guest boots, is finished by the real agent and answers through the router: minutes on a
 * busy machine.
 */
const READY_TIMEOUT_MS = 240_000;

const decode = (data: string | undefined): string => Buffer.from(data ?? '', 'base64').toString();
const condition = (instance: ClusterInstance | undefined, type: string) =>
  instance?.status?.conditions?.find((c) => c.type === type);

function crcPool(): ClusterPool {
  return {
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name: POOL, namespace: ns.name },
    spec: {
      type: 'crc',
      maxSize: 1,
      minSize: 0,
      warmSpares: 1,
      template: {
        releaseImage: RELEASE_IMAGE,
        bundleSSHKeyRef: { name: 'crc-bundle-ssh-key' },
        ocpVersion: '4.16.0',
        memory: '16Gi',
        cores: 4,
      },
    },
  };
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crc-instance-'));
  await createCrcPrerequisites(world.platform, ns.api, ns.name);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const readyInstance = (timeoutMs = READY_TIMEOUT_MS): Promise<ClusterInstance | undefined> =>
  waitFor<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace: ns.name,
    name: INSTANCE,
    until: (i) => i?.status?.phase === 'Ready',
    description: `ClusterInstance ${INSTANCE} to be Ready`,
    timeoutMs,
  });

describe('a crc ClusterInstance on the simulated platform', () => {
  let instance: ClusterInstance;

  it('provisions through CDI, KubeVirt, the Route and the crc-agent handoff to Ready', async () => {
    const instances = await ObjectHistory.start<ClusterInstance>(ns.api, INSTANCES, ns.name);
    const disks = await ObjectHistory.start<KubeObject>(ns.api, DATA_VOLUMES, ns.name);
    await ns.api.create(POOLS, crcPool());
    instance = (await readyInstance())!;
    await instances.seen(
      (v) => v.object.metadata!.name === INSTANCE && v.object.status?.phase === 'Ready',
    );
    instances.stop();
    disks.stop();
    const vmi = await ns.api.get<VmiObject>(VIRTUAL_MACHINE_INSTANCES, INSTANCE, ns.name);
    const vmiUid = vmi.metadata!.uid!;

    expect(instance.status).toMatchObject({
      topology: 'crc',
      ocpVersion: '4.16.0',
      kubeconfigSecretRef: { name: `${INSTANCE}-kubeconfig` },
      crc: {
        vmName: INSTANCE,
        dataVolumeName: `${INSTANCE}-rootdisk`,
        vmiUID: vmiUid,
        sshEndpoint: vmi.status!.interfaces![0]!.ipAddress,
      },
    });
    const host = instance.status!.apiEndpoint!.slice('https://'.length);
    expect(host).toMatch(
      new RegExp(`^api-crc-0-[0-9a-f]{16}\\.${world.platform.domain.replaceAll('.', '\\.')}$`),
    );
    expect(condition(instance, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'BackingResourcesAvailable',
    });
    expect(condition(instance, 'VersionMismatch')).toMatchObject({
      status: 'False',
      reason: 'OCPVersionMatches',
    });
    expect(condition(instance, 'CRCAgent')).toBeUndefined();

    // The disk, VM, API Service and Route and the agent Job, controlled by the instance.
    const owned = (object: KubeObject): boolean =>
      !!object.metadata?.ownerReferences?.some(
        (r) => r.controller && r.uid === instance.metadata!.uid,
      );
    const disk = await ns.api.get<DataVolumeObject>(DATA_VOLUMES, `${INSTANCE}-rootdisk`, ns.name);
    expect(disk.spec?.source).toEqual({ http: { url: RELEASE_IMAGE } });
    expect(owned(disk)).toBe(true);
    const vm = await ns.api.get<VirtualMachineObject>(VIRTUAL_MACHINES, INSTANCE, ns.name);
    expect(vm.spec?.runStrategy).toBe('Always');
    expect(owned(vm)).toBe(true);
    const service = await ns.api.get<KubeObject & { spec?: { selector?: Record<string, string> } }>(
      SERVICES,
      crcApiName(INSTANCE),
      ns.name,
    );
    expect(service.spec?.selector).toEqual({ [LABEL_VM_NAME]: INSTANCE });
    const route = await ns.api.get<RouteObject & { spec?: { tls?: { termination?: string } } }>(
      ROUTES,
      crcApiName(INSTANCE),
      ns.name,
    );
    expect(route.spec?.host).toBe(host);
    expect(route.spec?.tls?.termination).toBe('passthrough');
    // The instance is Ready once the agent has published its handoff; its pod exits right after,
    // so the Job's success may be recorded a moment later.
    const job = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: agentJobName(INSTANCE, vmiUid),
      until: (j) => j?.status?.succeeded === 1 || (j?.status?.failed ?? 0) > 0,
      description: 'the crc-agent Job to end',
    });
    expect(job!.status?.succeeded).toBe(1);
    expect(owned(job!)).toBe(true);
    const handoff = await ns.api.get<Secret>(SECRETS, handoffSecretName(INSTANCE, vmiUid), ns.name);
    expect(decode(handoff.data?.vmiUID)).toBe(vmiUid);
    const published = await ns.api.get<Secret>(SECRETS, `${INSTANCE}-kubeconfig`, ns.name);
    expect(decode(published.data?.ocpVersion)).toBe('4.16.0');
    expect(owned(published)).toBe(true);

    // The pool's authorization right after its create (the instance is the pool's from then
    // on), then one level-based pass: the finalizer, then one status write that holds the
    // namespace and platform gates, the recorded identity and the endpoint, durable before the
    // Route and the disk are made from them. Nothing else is written before the disk exists.
    const diskCreated = disks.of(`${INSTANCE}-rootdisk`).find((v) => v.type === 'ADDED')!;
    const writes = instances.of(INSTANCE).filter((v) => v.type === 'MODIFIED');
    const beforeDisk = writes.filter((v) => v.revision < diskCreated.revision);
    expect(beforeDisk.map((v) => v.object.metadata!.finalizers)).toEqual([
      undefined,
      [FINALIZER_INSTANCE_CLEANUP],
      [FINALIZER_INSTANCE_CLEANUP],
    ]);
    expect(beforeDisk[0]!.object.status).toEqual({
      phase: 'Provisioning',
      provisioning: { startedAt: expect.any(String), pool: POOL },
    });
    const first = beforeDisk[2]!.object;
    expect(first.status).toMatchObject({
      phase: 'Provisioning',
      provisioning: { startedAt: expect.any(String) },
      apiEndpoint: instance.status!.apiEndpoint,
      crc: { vmName: INSTANCE, dataVolumeName: `${INSTANCE}-rootdisk` },
    });
    for (const type of ['ProvisioningAllowed', 'HyperConvergedReady'])
      expect(condition(first, type)?.status).toBe('True');
  });

  it('binds a lease whose kubeconfig works against the guest API at the Route host', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'job-1', POOL));
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => l?.status?.phase === 'Bound',
      timeoutMs: 60_000,
    });
    expect(bound!.status).toMatchObject({
      topology: 'crc',
      ocpVersion: '4.16.0',
      apiEndpoint: instance.status!.apiEndpoint,
      instanceRef: { name: INSTANCE },
    });
    const secret = await ns.api.get<Secret>(
      SECRETS,
      bound!.status!.kubeconfigSecretRef!.name!,
      ns.name,
    );
    const file = path.join(dir, 'guest.kubeconfig');
    await writeFile(file, decode(secret.data?.kubeconfig), { mode: 0o600 });
    // No DNS for Route hosts here: the router is the HTTPS proxy; the kubeconfig stays as it is.
    const kubectl = (...args: string[]): Promise<{ stdout: string }> =>
      runCommand(testEnv('kubectl'), ['--kubeconfig', file, ...args], {
        env: { ...process.env, HTTPS_PROXY: world.platform.router.proxyUrl, NO_PROXY: '' },
      });
    expect((await kubectl('get', '--raw', '/readyz')).stdout).toBe('ok');
    expect((await kubectl('get', 'nodes', '-o', 'name')).stdout.trim()).toBe('node/crc');
    const version = await kubectl(
      'get',
      'clusterversion',
      'version',
      '-o',
      'jsonpath={.status.desired.version}',
    );
    expect(version.stdout).toBe('4.16.0');
  });

  it("gives the agent's account its own VMI's handoff Secret and no other Secret", async () => {
    const vmiUid = instance.status!.crc!.vmiUID!;
    const token = await coreApi(ns).createNamespacedServiceAccountToken({
      name: agentAccountName(INSTANCE),
      namespace: ns.name,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const cluster = ns.kubeConfig.getCurrentCluster();
    const agent = new ApiClient(
      clusterAccess({
        server: cluster.server,
        ca: Buffer.from(cluster.caData!, 'base64').toString(),
        token: token.status!.token!,
        insecureSkipTlsVerify: false,
      }),
    );
    try {
      const own = await agent.get<Secret>(SECRETS, handoffSecretName(INSTANCE, vmiUid), ns.name);
      await agent.update(SECRETS, own);
      const refused = { status: 403 };
      for (const name of [`${INSTANCE}-kubeconfig`, `${INSTANCE}-crc-identity`, 'pull-secret'])
        await expect(agent.get(SECRETS, name, ns.name)).rejects.toMatchObject(refused);
      await expect(agent.list(SECRETS, { namespace: ns.name })).rejects.toMatchObject(refused);
      await expect(
        agent.create(SECRETS, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: handoffSecretName(INSTANCE, 'another-vmi'), namespace: ns.name },
        }),
      ).rejects.toMatchObject(refused);
      const published = await ns.api.get<Secret>(SECRETS, `${INSTANCE}-kubeconfig`, ns.name);
      await expect(agent.update(SECRETS, published)).rejects.toMatchObject(refused);
    } finally {
      await agent.close();
    }
  });

  it('restores a deleted API Route with the same host', async () => {
    const name = crcApiName(INSTANCE);
    const before = await ns.api.get<RouteObject>(ROUTES, name, ns.name);
    await ns.api.delete(ROUTES, name, ns.name);
    const restored = await waitFor<RouteObject>(ns.kubeConfig, {
      type: ROUTES,
      namespace: ns.name,
      name,
      until: (r) => !!r && r.metadata!.uid !== before.metadata!.uid,
      description: 'the API Route to be restored',
      timeoutMs: 60_000,
    });
    expect(restored!.spec?.host).toBe(before.spec?.host);
  });

  it('reruns the agent for a replaced VMI and is Ready again with it', async () => {
    const old = await ns.api.get<VmiObject>(VIRTUAL_MACHINE_INSTANCES, INSTANCE, ns.name);
    const reasons = new Set<string>();
    const replaced = waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: INSTANCE,
      until: (i) => {
        const ready = condition(i, 'Ready');
        if (ready?.status === 'False') reasons.add(ready.reason);
        return i?.status?.phase === 'Ready' && i.status.crc?.vmiUID !== old.metadata!.uid;
      },
      description: 'the instance to be Ready with the new VMI',
      timeoutMs: READY_TIMEOUT_MS,
    });
    await ns.api.delete(VIRTUAL_MACHINE_INSTANCES, INSTANCE, ns.name);
    const again = (await replaced)!;
    expect(reasons).toContain('VMIReplaced');
    const vmi = await ns.api.get<VmiObject>(VIRTUAL_MACHINE_INSTANCES, INSTANCE, ns.name);
    expect(again.status!.crc!.vmiUID).toBe(vmi.metadata!.uid);
    // One agent Job, for the VMI that runs now; the old one went with its VMI.
    const jobs = await ns.api.list<Job>(JOBS, {
      namespace: ns.name,
      labelSelector: `${LABEL_CLUSTER_INSTANCE}=${INSTANCE}`,
    });
    expect(jobs.items.map((j) => j.metadata!.name)).toEqual([
      agentJobName(INSTANCE, vmi.metadata!.uid!),
    ]);
    // The lease stays bound to it, and the endpoint did not change.
    expect(again.status!.apiEndpoint).toBe(instance.status!.apiEndpoint);
    const bound = await ns.api.get<ClusterLease>(LEASES, 'job-1', ns.name);
    expect(bound.status?.phase).toBe('Bound');
  });

  it('tears down on release in order (halt, VMI, launcher pod, disk) and leaves nothing behind', async () => {
    // No replacement: the pool keeps nothing warm from now on.
    await ns.api.patch(POOLS, { name: POOL, namespace: ns.name }, { spec: { warmSpares: 0 } });
    const seen: string[] = [];
    const watchers = new AbortController();
    const record = async (
      type: ResourceType,
      label: string,
      what: (event: string, object: KubeObject) => boolean,
    ): Promise<void> => {
      const { resourceVersion } = await ns.api.list(type, { namespace: ns.name });
      void ns.api
        .watch<KubeObject>(
          type,
          { namespace: ns.name, resourceVersion },
          (event) => {
            if (what(event.type, event.object) && !seen.includes(label)) seen.push(label);
          },
          watchers.signal,
        )
        .catch(() => undefined);
    };
    await record(
      VIRTUAL_MACHINES,
      'halted',
      (_e, vm) => (vm as VirtualMachineObject).spec?.runStrategy === 'Halted',
    );
    await record(VIRTUAL_MACHINE_INSTANCES, 'vmi gone', (e) => e === 'DELETED');
    await record(
      PODS,
      'launcher pod gone',
      (e, pod) => e === 'DELETED' && pod.metadata?.labels?.[LABEL_VM_NAME] === INSTANCE,
    );
    await record(DATA_VOLUMES, 'disk gone', (e) => e === 'DELETED');
    try {
      await ns.api.delete(LEASES, 'job-1', ns.name);
      await waitFor(ns.kubeConfig, {
        type: INSTANCES,
        namespace: ns.name,
        name: INSTANCE,
        until: (i) => i === undefined,
        description: 'the released instance to be torn down',
        timeoutMs: 120_000,
      });
    } finally {
      watchers.abort();
    }
    expect(seen).toEqual(['halted', 'vmi gone', 'launcher pod gone', 'disk gone']);

    // Every kind the instance created: none of its objects remain.
    const selector = { namespace: ns.name };
    const mine = (object: KubeObject): boolean =>
      object.metadata?.name?.startsWith(INSTANCE) === true ||
      object.metadata?.labels?.[LABEL_CLUSTER_INSTANCE] === INSTANCE;
    for (const type of [
      VIRTUAL_MACHINES,
      VIRTUAL_MACHINE_INSTANCES,
      DATA_VOLUMES,
      PVCS,
      PODS,
      JOBS,
      SERVICES,
      ROUTES,
      SECRETS,
      SERVICE_ACCOUNTS,
      ROLES,
      ROLE_BINDINGS,
    ]) {
      const left = (await ns.api.list<KubeObject>(type, selector)).items.filter(mine);
      expect({ kind: type.kind, left: left.map((o) => o.metadata!.name) }).toEqual({
        kind: type.kind,
        left: [],
      });
    }
  });
});
