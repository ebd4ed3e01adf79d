import { beforeAll, describe, expect, it } from '@jest/globals';
import { CONFIG_MAPS, EVENTS, JOBS } from '../../client/api/core-resources.js';
import { LABEL_DIAGNOSTICS } from '../../client/diagnostics/diagnosed-kinds.js';
import type { Diagnostics } from '../../client/diagnostics/diagnostics-facts.js';
import { LABEL_POOL } from '../../contracts/labels.js';
import { LABEL_CLUSTER_INSTANCE } from '../../operator/api/labels.js';
import { ROUTES } from '../../operator/api/platform-resources.js';
import type { ClusterInstance, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, POOLS, SECRETS } from '../../client/api/resources.js';
import { agentJobName } from '../../operator/controllers/clusterinstance/crc/crc-naming.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Job } from '../../operator/kube/workloads.js';
import type { DataVolumeObject, VmiObject } from '../../dev/platform/host/platform-kinds.js';
import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../dev/platform/host/platform-kinds.js';
import type { RouteObject } from '../../dev/platform/router/simulated-router.js';
import { useWorld } from '../support/world.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { createCrcPrerequisites } from '../support/fixtures/crc-prerequisites.js';

/*
 * The crc topology when the platform does not play along: each test injects one failure into
 * the simulated platform for one instance and checks what a person sees (phase, the Ready
 * condition, CRCAgent, Events), and where the platform can recover, that the instance does too.
 */

/** The one instance whose guest needs a working API: its agent must finish to hand off. */
const ROUTE_CASE = 'unadmitted';
const world = useWorld({
  namespace: 'crc-failures',
  enabled: true,
  platform: {
    crc: {
      // Each real guest API costs a control plane; only the Route case gets that far.
      guestApi: (vmi) =>
        vmi.metadata?.labels?.[LABEL_CLUSTER_INSTANCE] === ROUTE_CASE ? 'per-guest' : 'never-ready',
    },
  },
  operator: true,
});
const { ns } = world;

type Condition = { type: string; status: string; reason: string; message: string };
type InstanceEvent = KubeObject & {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string; uid?: string };
};

const conditionOf = (instance: ClusterInstance | undefined, type: string): Condition | undefined =>
  instance?.status?.conditions?.find((c) => c.type === type);
const readyReason = (instance: ClusterInstance | undefined): string | undefined =>
  conditionOf(instance, 'Ready')?.reason;
/** The diagnostics bundle of a failed instance: `<name>-diagnostics-<first 8 of its UID>`. */
const bundleName = (instance: ClusterInstance): string =>
  `${instance.metadata!.name!}-diagnostics-${instance.metadata!.uid!.slice(0, 8)}`;
/** What a failed instance's Ready message ends with: where its diagnostics are. */
const bundleNote = (instance: ClusterInstance): string =>
  `; diagnostics in ConfigMap ${instance.metadata!.namespace!}/${bundleName(instance)}`;

describe('crc instances under injected platform failures', () => {
  let sshKeySecret: string;

  beforeAll(async () => {
    ({ sshKeySecret } = await createCrcPrerequisites(world.platform, ns.api, ns.name));
  });

  const template = (
    overrides: Partial<ClusterInstance['spec']['template']> = {},
  ): ClusterInstance['spec']['template'] => ({
    releaseImage: 'https://mirror.example.test/crc/4.16.0/crc.qcow2',
    ocpVersion: '4.16.0',
    memory: '16Gi',
    cores: 4,
    bundleSSHKeyRef: { name: sshKeySecret },
    ...overrides,
  });

  const createInstance = (
    name: string,
    overrides: Partial<ClusterInstance['spec']['template']> = {},
  ): Promise<ClusterInstance> =>
    ns.api.create<ClusterInstance>(INSTANCES, {
      apiVersion: INSTANCES.apiVersion,
      kind: INSTANCES.kind,
      metadata: { name, namespace: ns.name },
      spec: { type: 'crc', template: template(overrides) },
    });

  const waitInstance = (
    name: string,
    until: (instance: ClusterInstance | undefined) => boolean,
    description: string,
    timeoutMs = 90_000,
  ): Promise<ClusterInstance> =>
    waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name,
      until,
      description: `ClusterInstance ${name}: ${description}`,
      timeoutMs,
    }).then((instance) => instance!);

  /** The objects of a type that belong to an instance, by the label the operator puts on them. */
  const ownedBy = async (type: ResourceType, instance: string): Promise<string[]> =>
    (
      await ns.api.list<KubeObject>(type, {
        namespace: ns.name,
        labelSelector: `${LABEL_CLUSTER_INSTANCE}=${instance}`,
      })
    ).items.map((o) => o.metadata!.name!);

  /** The Events of one instance (by UID) once `until` holds for them. */
  const eventsOf = async (
    instance: ClusterInstance,
    until: (events: InstanceEvent[]) => boolean,
  ): Promise<InstanceEvent[]> => {
    const mine = (items: InstanceEvent[]): InstanceEvent[] =>
      items.filter(
        (e) =>
          e.involvedObject.kind === 'ClusterInstance' &&
          e.involvedObject.uid === instance.metadata!.uid,
      );
    return mine(
      await waitForList<InstanceEvent>(ns.kubeConfig, {
        type: EVENTS,
        namespace: ns.name,
        until: (items) => until(mine(items)),
        description: `the Events of ClusterInstance ${instance.metadata!.name}`,
      }),
    );
  };
  const warning = (reason: string) => (events: InstanceEvent[]) =>
    events.some((e) => e.type === 'Warning' && e.reason === reason);

  type ConfigMap = KubeObject & { data?: Record<string, string> };

  /** A Secret holding `value`, as a tenant's pull secret or a published kubeconfig would. */
  const plantSecret = async (name: string, key: string, value: string): Promise<void> => {
    const dockerConfig = JSON.stringify({
      auths: { 'quay.io': { auth: Buffer.from(`user:${value}`).toString('base64') } },
    });
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns.name },
      ...(key === '.dockerconfigjson' ? { type: 'kubernetes.io/dockerconfigjson' } : {}),
      stringData: { [key]: key === '.dockerconfigjson' ? dockerConfig : value },
    } as KubeObject);
  };

  /** The stored bundle of a failed instance once it is there, with its report parsed. */
  const storedBundle = async (
    instance: ClusterInstance,
  ): Promise<{ configMap: ConfigMap; report: Diagnostics; bytes: number }> => {
    const configMap = (await waitFor<ConfigMap>(ns.kubeConfig, {
      type: CONFIG_MAPS,
      namespace: ns.name,
      name: bundleName(instance),
      until: (cm) => cm !== undefined,
      description: `the diagnostics ConfigMap of ${instance.metadata!.name!}`,
    }))!;
    const data = configMap.data ?? {};
    const bytes = Object.values(data).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    return { configMap, report: JSON.parse(data['diagnostics.json']!) as Diagnostics, bytes };
  };

  /** Neither the value nor its base64 (as a Secret stores it) is anywhere in the bundle. */
  const expectNowhere = (configMap: ConfigMap, ...values: string[]): void => {
    const text = JSON.stringify(configMap);
    for (const value of values) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(Buffer.from(value).toString('base64'));
      expect(text).not.toContain(Buffer.from(`user:${value}`).toString('base64'));
    }
  };

  const waitVmi = (
    name: string,
    until: (vmi: VmiObject | undefined) => boolean,
    description: string,
  ): Promise<VmiObject> =>
    waitFor<VmiObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINE_INSTANCES,
      namespace: ns.name,
      name,
      until,
      description,
    }).then((vmi) => vmi!);

  describe('fail fast, before any VM, disk or Job', () => {
    const nothingCreatedFor = async (name: string): Promise<void> => {
      for (const type of [VIRTUAL_MACHINES, DATA_VOLUMES, JOBS])
        expect({ kind: type.kind, names: await ownedBy(type, name) }).toEqual({
          kind: type.kind,
          names: [],
        });
    };

    it('fails an instance whose pull secret does not exist: InvalidPullSecret', async () => {
      await createInstance('no-pull-secret', { pullSecretRef: { name: 'absent-pull-secret' } });
      const failed = await waitInstance(
        'no-pull-secret',
        (i) => i?.status?.phase === 'Failed',
        'Failed',
      );
      expect(conditionOf(failed, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'InvalidPullSecret',
        message: `pull secret ${ns.name}/absent-pull-secret not found${bundleNote(failed)}`,
      });
      await eventsOf(failed, warning('InvalidPullSecret'));
      await nothingCreatedFor('no-pull-secret');
    });

    it('fails an instance whose pull secret holds no usable credential: InvalidPullSecret, never its content', async () => {
      const password = 'not-a-user-password-pair';
      await ns.api.create(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'malformed-pull-secret', namespace: ns.name },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: {
          '.dockerconfigjson': JSON.stringify({
            auths: { 'quay.io': { auth: Buffer.from(password).toString('base64') } },
          }),
        },
      } as KubeObject);
      await createInstance('bad-pull-secret', { pullSecretRef: { name: 'malformed-pull-secret' } });
      const failed = await waitInstance(
        'bad-pull-secret',
        (i) => i?.status?.phase === 'Failed',
        'Failed',
      );
      expect(conditionOf(failed, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'InvalidPullSecret',
        message: `pull secret ${ns.name}/malformed-pull-secret: data key ".dockerconfigjson" has an entry for registry "quay.io" whose "auth" does not decode to user:password; correct the Secret${bundleNote(failed)}`,
      });
      const events = await eventsOf(failed, warning('InvalidPullSecret'));
      expect(JSON.stringify(events)).not.toContain(password);
      expect(JSON.stringify(events)).not.toContain(Buffer.from(password).toString('base64'));
      await nothingCreatedFor('bad-pull-secret');
    });

    it('fails a manual-path instance without its bundle SSH key Secret: MissingBundleSSHKey', async () => {
      await createInstance('no-bundle-key', { bundleSSHKeyRef: { name: 'absent-bundle-key' } });
      const failed = await waitInstance(
        'no-bundle-key',
        (i) => i?.status?.phase === 'Failed',
        'Failed',
      );
      expect(conditionOf(failed, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'MissingBundleSSHKey',
        message: `bundle SSH key Secret ${ns.name}/absent-bundle-key not found${bundleNote(failed)}`,
      });
      await eventsOf(failed, warning('MissingBundleSSHKey'));
      await nothingCreatedFor('no-bundle-key');
    });
  });

  it('waits without an agent Job while the VMI has no IP, and goes on with a replaced VMI that gets one', async () => {
    const name = 'no-ip';
    world.platform.noIp.add(name);
    await createInstance(name);
    const waiting = await waitInstance(
      name,
      (i) => conditionOf(i, 'Ready')?.message?.includes('to get an IP address') ?? false,
      'waiting for an IP',
    );
    const vmi = await ns.api.get<VmiObject>(VIRTUAL_MACHINE_INSTANCES, name, ns.name);
    expect(vmi.status?.phase).toBe('Running');
    expect(waiting.status).toMatchObject({
      phase: 'Provisioning',
      crc: { vmName: name, dataVolumeName: `${name}-rootdisk`, vmiUID: vmi.metadata!.uid },
    });
    expect(waiting.status!.crc!.sshEndpoint).toBeUndefined();
    expect(conditionOf(waiting, 'Ready')).toEqual(
      expect.objectContaining({
        status: 'False',
        reason: 'CRCBackingPending',
        message: `waiting for VirtualMachineInstance ${ns.name}/${name} to get an IP address`,
      }),
    );
    expect(conditionOf(waiting, 'CRCAgent')).toBeUndefined();
    expect(await ownedBy(JOBS, name)).toEqual([]);

    // Recovery: the platform hands out addresses again, and the stuck VMI is replaced.
    world.platform.noIp.delete(name);
    await ns.api.delete(VIRTUAL_MACHINE_INSTANCES, name, ns.name);
    const replaced = await waitVmi(
      name,
      (v) =>
        !!v &&
        v.metadata!.uid !== vmi.metadata!.uid &&
        v.status?.phase === 'Running' &&
        !!v.status.interfaces?.[0]?.ipAddress,
      'a new VMI with an IP',
    );
    const newUid = replaced.metadata!.uid!;
    const job = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: agentJobName(name, newUid),
      until: (j) => j !== undefined,
      description: 'the agent Job of the new VMI',
    });
    const jobEnv = Object.fromEntries(
      job!.spec.template.spec.containers[0]!.env!.map((e) => [e.name, e.value]),
    );
    expect(jobEnv).toMatchObject({
      CRC_VMI_UID: newUid,
      CRC_SSH_HOST: replaced.status!.interfaces![0]!.ipAddress,
    });
    const going = await waitInstance(
      name,
      (i) => i?.status?.crc?.vmiUID === newUid && !!conditionOf(i, 'CRCAgent'),
      'the agent stage for the new VMI',
    );
    expect(going.status!.crc!.sshEndpoint).toBe(replaced.status!.interfaces![0]!.ipAddress);
    expect(await ownedBy(JOBS, name)).toEqual([agentJobName(name, newUid)]);
  });

  it("stays Provisioning with VMIUnschedulable and the scheduler's words when no node matches vmNodeSelector", async () => {
    const name = 'unschedulable';
    await createInstance(name, { vmNodeSelector: { 'example.test/zone': 'nowhere' } });
    const message =
      `VirtualMachineInstance ${ns.name}/${name} is not scheduled: PodScheduled=False (Unschedulable): ` +
      "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. " +
      'no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
    const waiting = await waitInstance(
      name,
      (i) => readyReason(i) === 'VMIUnschedulable',
      'waiting with VMIUnschedulable',
    );
    expect(waiting.status?.phase).toBe('Provisioning');
    expect(conditionOf(waiting, 'Ready')?.message).toBe(message);
    const vmi = await ns.api.get<VmiObject>(VIRTUAL_MACHINE_INSTANCES, name, ns.name);
    expect(vmi.status?.phase).toBe('Scheduling');
    expect(vmi.status?.interfaces ?? []).toEqual([]);
    expect(await ownedBy(JOBS, name)).toEqual([]);
  });

  it("fails with CDI's own report when the disk import fails, naming the kubectl command", async () => {
    const name = 'bad-disk';
    world.platform.failingDataVolumes.add(name);
    const planted = {
      pull: 'planted-pull-secret-7f3a91',
      kubeconfig: 'planted-kubeconfig-c0ffee42',
    };
    await plantSecret('bad-disk-pull', '.dockerconfigjson', planted.pull);
    await plantSecret(`${name}-kubeconfig`, 'kubeconfig', planted.kubeconfig);
    await createInstance(name, { pullSecretRef: { name: 'bad-disk-pull' } });
    // CDI keeps the phase of a failing import; the importer's error is in the Running condition.
    const disk = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: `${name}-rootdisk`,
      until: (dv) => (dv?.status?.restartCount ?? 0) > 0,
      description: 'the root disk importer to fail',
    });
    expect(disk!.status!.phase).toBe('ImportInProgress');
    const cdiMessage = disk!.status!.conditions!.find((c) => c.type === 'Running')!.message!;
    const failed = await waitInstance(
      name,
      (i) => i?.status?.phase === 'Failed',
      'Failed with the disk failure',
    );
    const ready = conditionOf(failed, 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'DataVolumeFailed' });
    expect(ready.message).toBe(
      `DataVolume ${ns.name}/${name}-rootdisk cannot be filled: CDI reports Running=False ` +
        `(Error): "${cdiMessage}", importer restarted 1 time; look further with ` +
        `kubectl -n ${ns.name} describe datavolume ${name}-rootdisk${bundleNote(failed)}`,
    );
    expect(conditionOf(failed, 'CRCAgent')).toBeUndefined();
    expect(await ownedBy(JOBS, name)).toEqual([]);

    // Its diagnostics: a ConfigMap the message names, owned by the instance (it has no pool),
    // within its bound, with the disk's own report and nothing of its Secrets.
    const { configMap, report, bytes } = await storedBundle(failed);
    expect(configMap.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ClusterInstance', uid: failed.metadata!.uid }),
    ]);
    expect(configMap.metadata!.labels).toMatchObject({ [LABEL_DIAGNOSTICS]: 'true' });
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
    const dataVolume = report.objects.find((o) => o.kind === 'DataVolume')!;
    expect(dataVolume.name).toBe(`${name}-rootdisk`);
    expect(dataVolume.conditions.find((c) => c.type === 'Running')!.message).toBe(cdiMessage);
    expect(report.objects[0]).toMatchObject({ kind: 'ClusterInstance', name, phase: 'Failed' });
    expect(configMap.data!['diagnostics.md']).toContain(
      `### DataVolume ${ns.name}/${name}-rootdisk`,
    );
    expectNowhere(configMap, planted.pull, planted.kubeconfig);
  });

  it('fails a pool instance whose agent Job fails, and the pool replaces it', async () => {
    const pool = 'flaky';
    const first = `${pool}-0`;
    world.platform.failingJobs.add(first);
    const plantedPull = 'planted-pool-pull-5e1d07';
    await plantSecret('flaky-pull', '.dockerconfigjson', plantedPull);
    // Watch from before the pool exists: the Failed state lasts only until the pool replaces it.
    const failedSeen = waitInstance(first, (i) => i?.status?.phase === 'Failed', 'Failed', 120_000);
    await ns.api.create<ClusterPool>(POOLS, {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: pool, namespace: ns.name },
      // No instance before the older bundles are there: they must be older than its own.
      spec: {
        type: 'crc',
        minSize: 0,
        maxSize: 1,
        warmSpares: 0,
        template: template({ pullSecretRef: { name: 'flaky-pull' } }),
      },
    });
    // Six older bundles of the pool, and one of the same labels that is not the pool's.
    const poolObject = await ns.api.get<ClusterPool>(POOLS, pool, ns.name);
    const labels = { [LABEL_DIAGNOSTICS]: 'true', [LABEL_POOL]: pool };
    const owner = {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      name: pool,
      uid: poolObject.metadata!.uid!,
    };
    const older = Array.from({ length: 6 }, (_, n) => `older-diagnostics-${n}`);
    for (const cmName of [...older, 'foreign-diagnostics'])
      await ns.api.create(CONFIG_MAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: cmName,
          namespace: ns.name,
          labels,
          ...(cmName === 'foreign-diagnostics' ? {} : { ownerReferences: [owner] }),
        },
        data: { 'diagnostics.md': 'older' },
      } as KubeObject);
    await ns.api.patch(POOLS, { name: pool, namespace: ns.name }, { spec: { minSize: 1 } });
    const failed = await failedSeen;
    // The replacement's agent may run: the injected failure was for the first one only.
    world.platform.failingJobs.delete(first);
    const vmiUid = failed.status!.crc!.vmiUID!;
    const jobName = agentJobName(first, vmiUid);
    const ready = conditionOf(failed, 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'AgentJobFailed' });
    expect(ready.message).toMatch(
      new RegExp(
        `^crc-agent Job ${ns.name}/${jobName}: Job failed \\(BackoffLimitExceeded\\); inspect Pod \\S+ events and crc-agent logs; inspect with kubectl -n ${ns.name} describe job ${jobName}${bundleNote(failed)}$`,
      ),
    );
    expect(conditionOf(failed, 'CRCAgent')).toMatchObject({
      status: 'False',
      reason: 'AgentJobFailed',
      message: ready.message.slice(0, -bundleNote(failed).length),
    });
    await eventsOf(failed, warning('AgentJobFailed'));

    // Its bundle is the pool's (it outlives the instance the pool replaces), holds the agent
    // Job's status, and the pool keeps its five newest: the two oldest went, by UID.
    const { configMap, report, bytes } = await storedBundle(failed);
    expect(configMap.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ClusterPool', uid: owner.uid, blockOwnerDeletion: false }),
    ]);
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
    expect(report.jobs.map((j) => j.job.name)).toContain(jobName);
    expect(report.jobs.find((j) => j.job.name === jobName)!.job.conditions).toContainEqual(
      expect.objectContaining({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }),
    );
    expectNowhere(configMap, plantedPull);
    const kept = await waitForList<ConfigMap>(ns.kubeConfig, {
      type: CONFIG_MAPS,
      namespace: ns.name,
      until: (items) => !items.some((cm) => older.slice(0, 2).includes(cm.metadata!.name!)),
      description: "the pool's oldest bundles to be deleted",
    });
    const bundles = kept
      .filter((cm) => cm.metadata!.labels?.[LABEL_POOL] === pool)
      .map((cm) => cm.metadata!.name!)
      .sort();
    expect(bundles).toEqual([bundleName(failed), 'foreign-diagnostics', ...older.slice(2)].sort());

    // Broken supply heals: the pool deletes the failed, unclaimed instance and makes a new one.
    const replacement = await waitInstance(
      first,
      (i) =>
        !!i &&
        i.metadata!.uid !== failed.metadata!.uid &&
        !!conditionOf(i, 'CRCAgent') &&
        i.status?.crc?.vmiUID !== undefined,
      'a replacement whose agent runs',
      120_000,
    );
    expect(replacement.status!.phase).toBe('Provisioning');
    expect(readyReason(replacement)).not.toBe('AgentJobFailed');
    const events = await eventsOf(failed, warning('InstanceFailed'));
    expect(events.find((e) => e.reason === 'InstanceFailed')!.message).toContain(
      `Deleted failed ClusterInstance ${first} to replace it`,
    );
    const healthy = (await ns.api.get<ClusterPool>(POOLS, pool, ns.name)).status?.conditions?.find(
      (c) => c.type === 'ProvisioningHealthy',
    );
    expect(healthy).toMatchObject({ status: 'False', reason: 'InstancesFailing' });
    expect(healthy!.message).toContain(
      `latest: ${first}: AgentJobFailed: crc-agent Job ${ns.name}/${jobName}: Job failed`,
    );
  });

  it('stays Provisioning with GuestAPIUnavailable when the handoff arrives but the Route is not admitted', async () => {
    const name = ROUTE_CASE;
    world.platform.unadmittedRoutes.add(name);
    await createInstance(name);
    const waiting = await waitInstance(
      name,
      (i) => readyReason(i) === 'GuestAPIUnavailable',
      'GuestAPIUnavailable',
      180_000,
    );
    expect(waiting.status!.phase).toBe('Provisioning');
    expect(conditionOf(waiting, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'GuestAPIUnavailable',
      message:
        'CRC agent handoff received; guest API is not externally ready yet (see manager logs)',
    });
    expect(conditionOf(waiting, 'CRCAgent')).toMatchObject({
      status: 'True',
      reason: 'HandoffReceived',
    });
    expect(waiting.status!.kubeconfigSecretRef ?? {}).toEqual({});
    const route = await ns.api.get<RouteObject>(ROUTES, `${name}-crc-api`, ns.name);
    expect(route.status?.ingress ?? []).toEqual([]);
    expect(`https://${route.spec!.host}`).toBe(waiting.status!.apiEndpoint);
    await expect(ns.api.get(SECRETS, `${name}-kubeconfig`, ns.name)).rejects.toThrow();
  });
});
