import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CONFIG_MAPS,
  EVENTS,
  JOBS,
  PODS,
  PVCS,
  SERVICES,
} from '../../client/api/core-resources.js';
import type { CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../client/api/resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../operator/api/platform-resources.js';
import { LABEL_BUILD_ATTEMPT } from '../../operator/controllers/bundlebuild/build-meta.js';
import { NETWORK_POLICIES } from '../../operator/controllers/clusterinstance/crc/crc-network-policy.js';
import { buildNames } from '../../operator/controllers/bundlebuild/build-names.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import { DEFAULT_TIMINGS } from '../../operator/timings.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { BUILD_ENV } from '../../contracts/bundle-build.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import {
  buildBundle,
  condition,
  createBuildInputs,
  failedStep,
  leftOf as leftOfBuild,
  played,
  playBuild,
  PULL_SECRET,
  RELEASE,
} from '../support/fixtures/bundle-build-player.js';
import type { ContainerResult } from '../../dev/platform/jobs/local-pod.js';

// The file's namespace is the operator's: the build's objects and the validation instance live
// there (instances need it enabled), as on a cluster where the operator serves its own namespace.
const world = useWorld({
  namespace: 'bundle-build',
  enabled: true,
  // Every step is played here, the guest's part too: build VMIs boot plain guests.
  platform: { crc: { guestApi: 'never-ready' } },
});
const { ns: ops } = world;

const suffix = randomBytes(3).toString('hex');
const waitForBundle = (
  name: string,
  until: (b: CRCBundle | undefined) => boolean,
  what: string,
  timeoutMs = 60_000,
) =>
  waitFor<CRCBundle>(ops.kubeConfig, {
    type: BUNDLES,
    name,
    until,
    description: what,
    timeoutMs,
  }).catch(async (error: unknown) => {
    const now = await ops.api.get<CRCBundle>(BUNDLES, name).catch(() => undefined);
    const ready = condition(now, 'Ready');
    throw new Error(
      `${String(error)}; the bundle is ${now?.status?.phase}: ${ready?.reason}: ${ready?.message}`,
    );
  });
/** The label of a bundle meant for an operator of its own (operatorFor), not the world's. */
const OWN_OPERATOR = 'test.guestcluster.opdev.io/operator';
/** A build bundle for the world's operator, or, named `…-own`, for an operator of its own. */
const bundle = (name: string, build?: Parameters<typeof buildBundle>[1]): CRCBundle =>
  buildBundle(name, build, name.endsWith('-own') ? { [OWN_OPERATOR]: name } : world.scopeLabels);
const leftOf = (attempt: string) => leftOfBuild(ops.api, ops.name, attempt);
/** Plays every step of a build (the failure tests: each then fails one). */
const play = (name: string): void => void playBuild(world.platform, ops.api, ops.name, name);
/** A step the player never ends: only its Job's deadline or deletion ends its pod. */
const never = (): Promise<void> => new Promise<void>(() => undefined);
const RESOURCE_QUOTAS = resourceType('v1', 'ResourceQuota', 'resourcequotas');

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface NetworkPolicy extends KubeObject {
  spec: {
    podSelector: Selector;
    policyTypes: string[];
    ingress: {
      from: { podSelector?: Selector; namespaceSelector?: Selector }[];
      ports: unknown[];
    }[];
  };
}
/** Whether a label selector (matchLabels, and Exists or In expressions) selects these labels. */
const selects = (selector: Selector, labels: Record<string, string> = {}): boolean =>
  Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
  (selector.matchExpressions ?? []).every((e) =>
    e.operator === 'Exists'
      ? e.key in labels
      : e.operator === 'In' && (e.values ?? []).includes(labels[e.key] ?? ''),
  );

/** A step's Job of a bundle's build, once it exists. */
const stepJob = async (name: string, step: string): Promise<Job> =>
  (
    await waitForList<Job>(ops.kubeConfig, {
      type: JOBS,
      namespace: ops.name,
      labelSelector: `guestcluster.opdev.io/bundle-build-step=${step}`,
      until: (jobs) => jobs.some((j) => j.metadata?.labels?.['opdev.io/crc-bundle'] === name),
      description: `the ${step} Job of ${name}`,
    })
  ).find((j) => j.metadata?.labels?.['opdev.io/crc-bundle'] === name)!;

/**
 * The build Failed in `stage` with `reason` (its condition and Ready), said so in a Warning
 * Event, and left nothing behind. Returns the failed bundle.
 */
async function failedAndGone(
  name: string,
  failure: { stage: string; reason: string; message: string },
): Promise<CRCBundle> {
  const failed = (await waitForBundle(
    name,
    (b) => ['Failed', 'Ready'].includes(b?.status?.phase ?? ''),
    `the build ${name} failed`,
  ))!;
  expect(failed.status!.phase).toBe('Failed');
  expect(condition(failed, failure.stage)).toMatchObject({
    status: 'False',
    reason: failure.reason,
  });
  expect(condition(failed, failure.stage)!.message).toContain(failure.message);
  expect(condition(failed, 'Ready')).toMatchObject({ status: 'False', reason: failure.reason });
  await waitForList<KubeObject & { reason: string; involvedObject: { name: string } }>(
    ops.kubeConfig,
    {
      type: EVENTS,
      namespace: 'default',
      until: (list) =>
        list.some((e) => e.involvedObject.name === name && e.reason === failure.reason),
      description: `the ${failure.reason} Event of ${name}`,
    },
  );
  await waitForBundle(
    name,
    (b) => condition(b, 'BuildCleanedUp')?.status === 'True',
    `the build ${name} cleaned up`,
  );
  expect(await leftOf(failed.status!.build!.attempt!)).toEqual({});
  return failed;
}

describe('CRCBundle build', () => {
  const created: string[] = [];
  let failures = 0;
  /**
   * An operator of the same world for one bundle (named `…-own`: it carries that operator's
   * label, not the world's), with these timings: one a test can stop and start again.
   */
  const operatorFor = (name: string, timings = DEFAULT_TIMINGS) =>
    world.startOperator({
      controllers: ['crcbundle'],
      config: { operatorNamespace: ops.name, timings },
      scope: { [OWN_OPERATOR]: name },
    });

  beforeAll(async () => {
    await world.startOperator({
      config: { operatorNamespace: ops.name },
      bundles: true,
    });
    await createBuildInputs(ops.api, ops.name);
  });

  afterAll(async () => {
    // The build finalizer needs the operator: bundles go while it still runs.
    for (const name of created) {
      await ops.api.delete(BUNDLES, name).catch(() => undefined);
      await waitForBundle(name, (b) => b === undefined, `bundle ${name} gone`).catch(
        () => undefined,
      );
    }
  });

  it('records the attempt and its inputs, reaches its first SSH stage bound to the installer VMI, and fails that stage leaving nothing behind', async () => {
    const name = `build-a-${suffix}`;
    const platform = world.platform;
    platform.jobResults.set(
      `${name}/resolve`,
      played('resolve', {
        ocpVersion: '4.22.1',
        releaseDigest: `sha256:${'c'.repeat(64)}`,
        isoUrl: 'https://mirror.example.test/rhcos-live.iso',
        isoSha256: 'd'.repeat(64),
      }),
    );
    platform.jobResults.set(
      `${name}/dns-check`,
      played('dns-check', { answered: 'api-int.crc.testing=192.168.126.11' }),
    );
    platform.failingJobs.add(`${name}/ignition`);
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name));

    // P2 Ignition's Job, bound to the installer VMI, with the shifted clock.
    const [job] = await waitForList<Job>(ops.kubeConfig, {
      type: JOBS,
      namespace: ops.name,
      labelSelector: `guestcluster.opdev.io/bundle-build-step=ignition`,
      until: (jobs) => jobs.some((j) => j.metadata?.labels?.['opdev.io/crc-bundle'] === name),
      description: 'the ignition Job',
    });
    const env = Object.fromEntries(
      (job!.spec.template.spec.containers[0]!.env ?? []).map((e) => [e.name, e.value]),
    );
    const names = buildNames(name, job!.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
    const vmi = await ops.api.get<
      KubeObject & { status?: { interfaces?: { ipAddress?: string }[] } }
    >(VIRTUAL_MACHINE_INSTANCES, names.installerVm, ops.name);
    expect(env).toMatchObject({
      [BUILD_ENV.step]: 'ignition',
      [BUILD_ENV.vmiUid]: vmi.metadata!.uid,
      [BUILD_ENV.sshHost]: vmi.status!.interfaces![0]!.ipAddress,
      [BUILD_ENV.clockOffsetSeconds]: '-86400',
      [BUILD_ENV.releaseImage]: RELEASE,
    });
    // No API token in a build Job; the inputs come from the attempt's snapshot, not the tenant-named objects.
    expect(job!.spec.template.spec.automountServiceAccountToken).toBe(false);

    const running = await ops.api.get<CRCBundle>(BUNDLES, name);
    const build = running.status!.build!;
    expect(build.stage).toBe('Ignition');
    expect(build.profile).toBe('crc-kubevirt-v1');
    expect(build.releaseDigest).toBe(`sha256:${'c'.repeat(64)}`);
    expect(build.inputs).toEqual([
      expect.objectContaining({ role: 'PullSecret', kind: 'Secret', name: 'build-pull-secret' }),
      expect.objectContaining({
        role: 'InstallationManifest',
        kind: 'ConfigMap',
        name: 'build-machineconfigs',
      }),
    ]);
    expect(JSON.stringify(running.status)).not.toContain('dXNlcjpwYXNz');
    // Every object the build made is recorded with its UID.
    const recorded = Object.fromEntries((build.objects ?? []).map((o) => [o.role, o.uid]));
    expect(Object.keys(recorded).sort()).toEqual(
      [
        'DNSConfig',
        'DNSDeployment',
        'DNSService',
        'GuestNetworkPolicy',
        'InputsSnapshot',
        'InstallerCloudInit',
        'InstallerVM',
        'InstallerVMI',
        'SSHKey',
        'WorkVolume',
      ].sort(),
    );
    expect(recorded.InstallerVMI).toBe(vmi.metadata!.uid);

    // Only this build's step Job pods reach its VMs, on SSH only: the policy was recorded before
    // any VM, and its selectors match the real pods.
    const roles = (build.objects ?? []).map((o) => o.role);
    expect(roles.indexOf('GuestNetworkPolicy')).toBeLessThan(roles.indexOf('InstallerVM'));
    const policyName = build.objects!.find((o) => o.role === 'GuestNetworkPolicy')!.name;
    const policy = await ops.api.get<NetworkPolicy>(NETWORK_POLICIES, policyName, ops.name);
    expect(policy.metadata!.uid).toBe(recorded.GuestNetworkPolicy);
    expect(policy.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CRCBundle', uid: running.metadata!.uid, controller: true }),
    ]);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toHaveLength(1);
    const [ssh] = policy.spec.ingress;
    expect(ssh!.ports).toEqual([{ protocol: 'TCP', port: 22 }]);
    expect(ssh!.from).toHaveLength(1);
    expect(ssh!.from[0]!.namespaceSelector).toBeUndefined();
    const pods = (await ops.api.list<KubeObject>(PODS, { namespace: ops.name })).items;
    const ofAttempt = (p: KubeObject): boolean =>
      p.metadata?.labels?.[LABEL_BUILD_ATTEMPT] === build.attempt;
    const launchers = pods.filter(
      (p) => ofAttempt(p) && p.metadata?.labels?.['kubevirt.io'] === 'virt-launcher',
    );
    const stepPods = pods.filter(
      (p) => ofAttempt(p) && !!p.metadata?.labels?.['batch.kubernetes.io/job-name'],
    );
    expect(launchers.map((p) => p.metadata!.labels![LABEL_VM_NAME])).toEqual([names.installerVm]);
    expect(stepPods.length).toBeGreaterThan(0);
    const podNames = (list: KubeObject[]): string[] => list.map((p) => p.metadata!.name!).sort();
    expect(
      podNames(pods.filter((p) => selects(policy.spec.podSelector, p.metadata?.labels))),
    ).toEqual(podNames(launchers));
    expect(
      podNames(pods.filter((p) => selects(ssh!.from[0]!.podSelector!, p.metadata?.labels))),
    ).toEqual(podNames(stepPods));
    expect(condition(running, 'Resolved')).toMatchObject({ status: 'True' });
    expect(condition(running, 'BuildDNSReady')).toMatchObject({ status: 'True' });

    // A later change of an input does not reach the build: its snapshot keeps what was recorded.
    await ops.api.patch(
      SECRETS,
      { name: 'build-pull-secret', namespace: ops.name },
      { stringData: { '.dockerconfigjson': '{}' } },
    );
    const snapshot = await ops.api.get<Secret>(SECRETS, names.inputs, ops.name);
    expect(Buffer.from(snapshot.data!['pull-secret']!, 'base64').toString()).toBe(
      JSON.stringify(PULL_SECRET),
    );
    await ops.api.patch(
      SECRETS,
      { name: 'build-pull-secret', namespace: ops.name },
      { stringData: { '.dockerconfigjson': JSON.stringify(PULL_SECRET) } },
    );

    const failed = await waitForBundle(
      name,
      (b) => b?.status?.phase === 'Failed',
      'the build Failed',
    );
    expect(condition(failed, 'Ready')).toMatchObject({ status: 'False', reason: 'IgnitionFailed' });
    expect(condition(failed, 'Ready')!.message).toContain('P2 Ignition failed');
    expect(condition(failed, 'IgnitionGenerated')).toMatchObject({
      status: 'False',
      reason: 'IgnitionFailed',
    });
    await waitForBundle(
      name,
      (b) => condition(b, 'BuildCleanedUp')?.status === 'True',
      'the build cleaned up',
    );
    expect(await leftOf(build.attempt!)).toEqual({});
    // An Event per stage.
    const events = await waitForList<
      KubeObject & { reason: string; message: string; involvedObject: { name: string } }
    >(ops.kubeConfig, {
      type: EVENTS,
      namespace: 'default',
      until: (list) => list.filter((e) => e.involvedObject.name === name).length >= 4,
      description: 'the build Events',
    });
    expect(events.filter((e) => e.involvedObject.name === name).map((e) => e.reason)).toEqual(
      expect.arrayContaining([
        'BuildStarted',
        'BuildStageCompleted',
        'IgnitionFailed',
        'BuildCleanedUp',
      ]),
    );
  });

  it.each([
    {
      group: 'a Job fails (P1)',
      inject: (name: string) => world.platform.failingJobs.add(`${name}/dns-check`),
      stage: 'BuildDNSReady',
      reason: 'DNSFailed',
    },
    {
      group: 'the installer VM never gets an IP (P2, past the deadline)',
      inject: (name: string) => world.platform.noIp.add(`${name}/installer`),
      build: { deadlineSeconds: 5 },
      stage: 'IgnitionGenerated',
      reason: 'BuildTimedOut',
      message: 'it was in stage P2 Ignition: waiting for VMI',
    },
    {
      group: 'the install wait times out (P5)',
      inject: (name: string) =>
        world.platform.jobResults.set(
          `${name}/install-wait`,
          failedStep(
            'install-wait',
            'InstallTimedOut',
            'clusterversion was not Available within 90m',
          ),
        ),
      stage: 'Installed',
      reason: 'InstallTimedOut',
    },
    {
      group: 'a seal check fails (P10)',
      inject: (name: string) =>
        world.platform.jobResults.set(
          `${name}/seal-check`,
          failedStep('seal-check', 'SealCheckFailed', 'kubelet-disabled: the kubelet is enabled'),
        ),
      stage: 'Sealed',
      reason: 'SealCheckFailed',
    },
    {
      group: 'the clone fails (P12)',
      inject: (name: string) => world.platform.failingDataVolumes.add(`${name}-golden`),
      stage: 'DiskCaptured',
      reason: 'CaptureFailed',
    },
  ])(
    'fails when $group, with a stage-specific reason, and leaves nothing behind',
    async (failure) => {
      const name = `build-f${failures++}-${suffix}`;
      play(name);
      failure.inject(name);
      created.push(name);
      await ops.api.create(BUNDLES, bundle(name, failure.build));
      const failed = await waitForBundle(
        name,
        (b) => ['Failed', 'Ready'].includes(b?.status?.phase ?? ''),
        'the build failed',
      );
      expect(condition(failed, 'Ready')).toMatchObject({ status: 'False', reason: failure.reason });
      expect(condition(failed, failure.stage)).toMatchObject({
        status: 'False',
        reason: failure.reason,
      });
      if (failure.message) expect(condition(failed, 'Ready')!.message).toContain(failure.message);
      await waitForBundle(
        name,
        (b) => condition(b, 'BuildCleanedUp')?.status === 'True',
        'the build cleaned up',
      );
      expect(await leftOf(failed!.status!.build!.attempt!)).toEqual({});
      expect(failed!.status!.qcow2PVCRef).toBeUndefined();
    },
  );

  it('fails a step whose Job outlives its deadline with StepTimedOut, and leaves nothing behind', async () => {
    // Its own operator, whose step deadline (build.stepDeadline) is a second: the file's operator
    // keeps the production deadlines.
    const name = `build-late-${suffix}-own`;
    await operatorFor(name, {
      ...DEFAULT_TIMINGS,
      build: { ...DEFAULT_TIMINGS.build, stepDeadlineMs: 1000 },
    });
    playBuild(world.platform, ops.api, ops.name, name, { resolve: never });
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name));
    const job = await stepJob(name, 'resolve');
    expect(job.spec.activeDeadlineSeconds).toBe(1);
    const failed = await failedAndGone(name, {
      stage: 'Resolved',
      reason: 'StepTimedOut',
      message: `the resolve step failed (Job ${ops.name}/${job.metadata!.name}): the resolve step did not finish within 1s`,
    });
    expect(condition(failed, 'Ready')!.message).toContain('P0 Resolve failed');
  });

  it('fails with BuildObjectLost, naming it, when an object of an earlier stage is deleted mid-build', async () => {
    const name = `build-lost-${suffix}`;
    playBuild(world.platform, ops.api, ops.name, name, { ignition: never });
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name, { certificateRotation: 'Disabled' }));
    const job = await stepJob(name, 'ignition'); // P2 Ignition: the DNS of P1 DNS is done with and recorded
    const names = buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
    await ops.api.delete(SERVICES, names.dns, ops.name);
    await failedAndGone(name, {
      stage: 'IgnitionGenerated',
      reason: 'BuildObjectLost',
      message: `Service ${ops.name}/${names.dns} (DNSService) was deleted during the build`,
    });
  });

  it('fails with BuildObjectReplaced, naming both UIDs, when an object is deleted and made again under its name', async () => {
    const name = `build-swap-${suffix}-own`;
    const first = await operatorFor(name);
    playBuild(world.platform, ops.api, ops.name, name, { ignition: never });
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name, { certificateRotation: 'Disabled' }));
    const job = await stepJob(name, 'ignition');
    const names = buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
    const service = await ops.api.get<KubeObject & { spec: Record<string, unknown> }>(
      SERVICES,
      names.dns,
      ops.name,
    );
    // Replaced while the operator is down: once back, it sees only the new one.
    await first.stop();
    await ops.api.delete(SERVICES, names.dns, ops.name);
    const { labels, ownerReferences } = service.metadata!;
    const { selector, ports } = service.spec;
    const replacement = await ops.api.create<KubeObject & { spec: object }>(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: names.dns, namespace: ops.name, labels, ownerReferences },
      spec: { selector, ports },
    });
    await operatorFor(name);
    await failedAndGone(name, {
      stage: 'IgnitionGenerated',
      reason: 'BuildObjectReplaced',
      message: `Service ${ops.name}/${names.dns} (DNSService) was replaced during the build (UID ${replacement.metadata!.uid}, the build made ${service.metadata!.uid})`,
    });
  });

  it('fails with InputChanged when an input changes after its digest is recorded and before the snapshot exists, showing the refused snapshot meanwhile', async () => {
    const name = `build-input-${suffix}`;
    play(name);
    // No new Secret in the operator namespace for now. The quota controller does not run here, so
    // the quota's status is written as it would write it (used: the Secrets there are).
    const secrets = (await ops.api.list<KubeObject>(SECRETS, { namespace: ops.name })).items.length;
    const quota = { secrets: String(secrets) };
    await ops.api.create(RESOURCE_QUOTAS, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'no-new-secrets', namespace: ops.name },
      spec: { hard: quota },
    });
    await ops.api.patch(
      RESOURCE_QUOTAS,
      { name: 'no-new-secrets', namespace: ops.name, subresource: 'status' },
      { status: { hard: quota, used: quota } },
    );
    created.push(name);
    try {
      await ops.api.create(BUNDLES, bundle(name));
      const refused = await waitForBundle(
        name,
        (b) => condition(b, 'Resolved')?.reason === 'CreateRefused',
        'the snapshot refused',
      );
      expect(condition(refused, 'Resolved')!.message).toContain(
        `creating Secret ${ops.name}/${buildNames(name, refused!.status!.build!.attempt!).inputs} was refused`,
      );
      expect(condition(refused, 'Resolved')!.message).toContain('exceeded quota');
      expect(refused!.status!.phase).toBe('Preparing');
      await ops.api.patch(
        CONFIG_MAPS,
        { name: 'build-machineconfigs', namespace: ops.name },
        { data: { '99-extra.yaml': 'kind: MachineConfig\nchanged: true\n' } },
      );
    } finally {
      await ops.api.delete(RESOURCE_QUOTAS, 'no-new-secrets', ops.name);
    }
    await failedAndGone(name, {
      stage: 'Resolved',
      reason: 'InputChanged',
      message: `ConfigMap ${ops.name}/build-machineconfigs changed after the build started`,
    });
    await ops.api.patch(
      CONFIG_MAPS,
      { name: 'build-machineconfigs', namespace: ops.name },
      { data: { '99-extra.yaml': 'kind: MachineConfig\n' } },
    );
  });

  it('goes on with the inputs it recorded when they change after its snapshot exists', async () => {
    const name = `build-kept-${suffix}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    playBuild(world.platform, ops.api, ops.name, name, {
      resolve: () => released,
      ignition: never,
    });
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name, { certificateRotation: 'Disabled' }));
    const resolving = await stepJob(name, 'resolve'); // P0 Resolve's snapshot exists: its Job mounts it
    const attempt = resolving.metadata!.labels![LABEL_BUILD_ATTEMPT]!;
    const names = buildNames(name, attempt);
    const recorded = (await ops.api.get<CRCBundle>(BUNDLES, name)).status!.build!.inputs;
    const snapshot = (await ops.api.get<Secret>(SECRETS, names.inputs, ops.name)).data;
    const change = (pullSecret: string, manifest: string) =>
      Promise.all([
        ops.api.patch(
          SECRETS,
          { name: 'build-pull-secret', namespace: ops.name },
          { stringData: { '.dockerconfigjson': pullSecret } },
        ),
        ops.api.patch(
          CONFIG_MAPS,
          { name: 'build-machineconfigs', namespace: ops.name },
          { data: { '99-extra.yaml': manifest } },
        ),
      ]);
    await change('{"auths":{}}', 'kind: MachineConfig\nchanged: true\n');
    try {
      release();
      // The build goes on (P1 DNS, then P2 Ignition's Job, held) with what it recorded.
      const job = await stepJob(name, 'ignition');
      const going = await ops.api.get<CRCBundle>(BUNDLES, name);
      expect(going.status!.phase).toBe('Preparing');
      expect(condition(going, 'Resolved')).toMatchObject({ status: 'True' });
      expect(condition(going, 'BuildDNSReady')).toMatchObject({ status: 'True' });
      expect(going.status!.build!.inputs).toEqual(recorded);
      expect((await ops.api.get<Secret>(SECRETS, names.inputs, ops.name)).data).toEqual(snapshot);
      expect(Buffer.from(snapshot!['pull-secret']!, 'base64').toString()).toBe(
        JSON.stringify(PULL_SECRET),
      );
      const volumes = job.spec.template.spec.volumes ?? [];
      expect(volumes.filter((v) => v.secret).map((v) => v.secret!.secretName)).toEqual(
        expect.arrayContaining([names.inputs]),
      );
      expect(JSON.stringify(volumes)).not.toContain('build-pull-secret');
    } finally {
      await change(JSON.stringify(PULL_SECRET), 'kind: MachineConfig\n');
    }
    await ops.api.delete(BUNDLES, name);
    await waitForBundle(name, (b) => b === undefined, 'the bundle gone');
    expect(await leftOf(attempt)).toEqual({});
  });

  it('fails with BuildVMIReplaced when the VMI a running step is bound to is replaced, never waiting on that step', async () => {
    const name = `build-vmi-${suffix}`;
    playBuild(world.platform, ops.api, ops.name, name, { 'install-wait': never });
    created.push(name);
    // Without certificate rotation P2 Ignition needs no installer VM: only the target VM boots.
    await ops.api.create(BUNDLES, bundle(name, { certificateRotation: 'Disabled' }));
    const job = await stepJob(name, 'install-wait');
    const names = buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
    const bound = job.metadata!.annotations!['guestcluster.opdev.io/bundle-build-vmi-uid']!;
    // The launcher pod goes: the VMI fails, and RerunOnFailure starts a new one (a new UID). The
    // step's Job runs on, bound to the VMI that is gone.
    const [launcher] = (
      await ops.api.list<KubeObject>(PODS, {
        namespace: ops.name,
        labelSelector: `${LABEL_VM_NAME}=${names.targetVm},kubevirt.io=virt-launcher`,
      })
    ).items;
    await ops.api.delete(PODS, launcher!.metadata!.name!, ops.name);
    const failed = await failedAndGone(name, {
      stage: 'Installed',
      reason: 'BuildVMIReplaced',
      message: `the install-wait step ran in ${bound}`,
    });
    const step = failed.status!.build!.steps!.find((s) => s.name === 'P5-install-wait');
    expect(step).toMatchObject({ vmiUID: bound });
    expect(step!.completedAt).toBeUndefined();
  });

  it('fails with BuildVMIReplaced when a VMI boots the sealed disk after the last poweroff, and never captures it', async () => {
    const name = `build-boot-${suffix}`;
    play(name);
    const poweroff = world.platform.jobResults.get(`${name}/poweroff`) as (
      job: Job,
    ) => Promise<ContainerResult>;
    let poweroffs = 0;
    let sealed = '';
    world.platform.jobResults.set(`${name}/poweroff`, async (job) => {
      if (++poweroffs === 1) return poweroff(job); // P7 ReturnToPresent
      // P11 ZeroAndStop: the guest crashes instead of powering off, and RerunOnFailure boots the sealed disk
      // again; the agent only sees its SSH session end, as after a poweroff.
      const names = buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
      sealed = job.metadata!.annotations!['guestcluster.opdev.io/bundle-build-vmi-uid']!;
      const [launcher] = (
        await ops.api.list<KubeObject>(PODS, {
          namespace: ops.name,
          labelSelector: `${LABEL_VM_NAME}=${names.targetVm},kubevirt.io=virt-launcher`,
        })
      ).items;
      await ops.api.delete(PODS, launcher!.metadata!.name!, ops.name);
      await waitFor<KubeObject & { status?: { phase?: string } }>(ops.kubeConfig, {
        type: VIRTUAL_MACHINE_INSTANCES,
        namespace: ops.name,
        name: names.targetVm,
        until: (vmi) => !!vmi && vmi.metadata!.uid !== sealed && vmi.status?.phase === 'Running',
        description: 'the target VM booted again',
      });
      return played('poweroff', {});
    });
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name, { certificateRotation: 'Disabled' }));
    const failed = await failedAndGone(name, {
      stage: 'Stopped',
      reason: 'BuildVMIReplaced',
      message: 'it booted the sealed disk',
    });
    expect(condition(failed, 'Stopped')!.message).toContain(
      `after the guest in ${sealed} powered off`,
    );
    expect(poweroffs).toBe(2);
    expect(condition(failed, 'DiskCaptured')?.status).not.toBe('True');
  });

  it('stops its VMs and Jobs before its storage goes when the bundle is deleted mid-build, and leaves nothing', async () => {
    const name = `build-d-${suffix}`;
    let reached!: () => void;
    let release!: () => void;
    const installing = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    // The install wait runs until the bundle is deleted, with the target VM running; its pod then
    // ends (as the kubelet kills a deleted Job's container).
    playBuild(world.platform, ops.api, ops.name, name, {
      'install-wait': () => (reached(), released),
    });
    await ops.api.create(BUNDLES, bundle(name));
    await installing;
    const attempt = (await ops.api.get<CRCBundle>(BUNDLES, name)).status!.build!.attempt!;
    const gone: string[] = [];
    const watchers = new AbortController();
    for (const type of [VIRTUAL_MACHINE_INSTANCES, JOBS, DATA_VOLUMES, PVCS]) {
      const { resourceVersion } = await ops.api.list(type, { namespace: ops.name });
      void ops.api
        .watch<KubeObject>(
          type,
          {
            namespace: ops.name,
            resourceVersion,
            labelSelector: `${LABEL_BUILD_ATTEMPT}=${attempt}`,
          },
          (event) => {
            if (event.type === 'DELETED') gone.push(type.kind);
          },
          watchers.signal,
        )
        .catch(() => undefined);
    }
    try {
      await ops.api.delete(BUNDLES, name);
      release();
      await waitForBundle(name, (b) => b === undefined, 'the deleted bundle gone');
    } finally {
      watchers.abort();
    }
    const last = (kind: string) => gone.lastIndexOf(kind);
    const first = (kind: string) => gone.indexOf(kind);
    expect(last('VirtualMachineInstance')).toBeGreaterThanOrEqual(0);
    expect(last('VirtualMachineInstance')).toBeLessThan(first('DataVolume'));
    expect(last('Job')).toBeLessThan(first('PersistentVolumeClaim'));
    expect(await leftOf(attempt)).toEqual({});
  });
});
