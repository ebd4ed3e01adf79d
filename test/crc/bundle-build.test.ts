import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AUTHORIZED_KEYS_OFFSET,
  DISK_FILE,
  embedAuthorizedKeys,
} from '../../dev/platform/simulated-disk.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CONFIG_MAPS,
  EVENTS,
  JOBS,
  PODS,
  PVCS,
  SERVICES,
} from '../../operator/api/core-resources.js';
import type { CRCBundle } from '../../operator/api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../operator/api/resources.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../operator/api/platform-resources.js';
import { LABEL_BUILD_ATTEMPT } from '../../operator/controllers/crcbundle/build/build-meta.js';
import { buildNames } from '../../operator/controllers/crcbundle/build/build-names.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../operator/kube/resource-type.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { BUILD_ENV, BUILD_STAGES } from '../../contracts/bundle-build.js';
import type { BuildStep, BuildStepOutputs } from '../../contracts/bundle-build.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';

// The file's namespace is the operator's: the build's objects and the validation instance live
// there (instances need it enabled), as on a cluster where the operator serves its own namespace.
const world = useWorld({
  namespace: 'bundle-build',
  enabled: true,
  // Build VMs need no guest API; the validation instance's guest runs one.
  platform: {
    crc: {
      guestApi: (vmi) =>
        vmi.metadata?.labels?.['guestcluster.opdev.io/bundle-build-role']
          ? 'never-ready'
          : 'per-guest',
    },
  },
});
const { ns: ops } = world;

const suffix = randomBytes(3).toString('hex');
const PULL_SECRET = { auths: { 'quay.io': { auth: 'dXNlcjpwYXNz' } } };
const RELEASE = `quay.io/openshift-release-dev/ocp-release@sha256:${'c'.repeat(64)}`;

/** Every kind a build makes, or KubeVirt, CDI and the Job controller make for it. */
const KINDS: ResourceType[] = [
  JOBS,
  PODS,
  VIRTUAL_MACHINES,
  VIRTUAL_MACHINE_INSTANCES,
  DATA_VOLUMES,
  PVCS,
  SECRETS,
  CONFIG_MAPS,
  SERVICES,
  DEPLOYMENTS,
  INSTANCES,
];

function bundle(
  name: string,
  build: Partial<NonNullable<CRCBundle['spec']['build']>> = {},
): CRCBundle {
  return {
    apiVersion: BUNDLES.apiVersion,
    kind: BUNDLES.kind,
    metadata: { name },
    spec: {
      build: {
        releaseImage: RELEASE,
        pullSecretRef: { name: 'build-pull-secret' },
        installationManifestRefs: [{ name: 'build-machineconfigs' }],
        vm: { cores: 2, memory: '4Gi', diskSize: '1Gi' },
        ...build,
      },
    },
  };
}

/** The result a step's Job leaves, for a step this machine has no tools for (oc, coreos-installer). */
function played<S extends BuildStep>(step: S, outputs: BuildStepOutputs[S]) {
  return { exitCode: 0, reason: 'Completed', message: JSON.stringify({ step, ok: true, outputs }) };
}

const waitForBundle = (
  name: string,
  until: (b: CRCBundle | undefined) => boolean,
  what: string,
  timeoutMs = 60_000,
) =>
  waitFor<CRCBundle>(ops.kubeConfig, { type: BUNDLES, name, until, description: what, timeoutMs });
const condition = (b: CRCBundle | undefined, type: string) =>
  b?.status?.conditions?.find((c) => c.type === type);

/** What is left of a build attempt, kind by kind. */
async function leftOf(attempt: string): Promise<Record<string, string[]>> {
  const left: Record<string, string[]> = {};
  for (const type of KINDS) {
    const items = (
      await ops.api.list<KubeObject>(type, {
        namespace: ops.name,
        labelSelector: `${LABEL_BUILD_ATTEMPT}=${attempt}`,
      })
    ).items;
    if (items.length) left[type.kind] = items.map((o) => o.metadata!.name!);
  }
  return left;
}

/** The VMIs the played guest saw, by UID: their clock offset and whether they had the cdrom. */
const presentVmis = new Map<string, { offsetSeconds: number | undefined; cdrom: boolean }>();

type Vmi = KubeObject & {
  spec?: {
    domain?: { clock?: { utc?: { offsetSeconds?: number } } };
    volumes?: { name: string }[];
  };
};

/**
 * Plays every step of a build whose agent and guest cannot run here yet: each Job ends with the
 * step's result; install-wait writes the installed disk (the build key's public half in the
 * simulated disk record), poweroff powers the guest off, publish measures the golden disk.
 */
function play(name: string): void {
  const { platform } = world;
  const ok = (step: BuildStep, outputs: Record<string, unknown> = {}) =>
    played(step, outputs as never);
  const envOf = (job: Job) =>
    Object.fromEntries(
      (job.spec.template.spec.containers[0]!.env ?? []).map((e) => [e.name, e.value ?? '']),
    );
  const namesOf = (job: Job) => buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
  const results: [string, Parameters<typeof platform.jobResults.set>[1]][] = [
    [
      'resolve',
      ok('resolve', {
        ocpVersion: '4.22.1',
        releaseDigest: `sha256:${'c'.repeat(64)}`,
        isoUrl: 'https://mirror.example.test/live.iso',
        isoSha256: 'd'.repeat(64),
      }),
    ],
    ['dns-check', ok('dns-check', { answered: 'api-int.crc.testing=192.168.126.11' })],
    [
      'ignition',
      ok('ignition', { certificateNotBefore: new Date(Date.now() - 86_400_000).toISOString() }),
    ],
    ['iso', ok('iso', { liveIsoSha256: 'e'.repeat(64) })],
    [
      'install-wait',
      async (job) => {
        const names = namesOf(job);
        const key = await ops.api.get<Secret>(SECRETS, names.sshKey, ops.name);
        const disk = Buffer.alloc(2 * AUTHORIZED_KEYS_OFFSET);
        embedAuthorizedKeys(disk, Buffer.from(key.data!['id_ecdsa.pub']!, 'base64').toString());
        await writeFile(path.join(platform.volumePath(ops.name, names.rootDisk)!, DISK_FILE), disk);
        return ok('install-wait', { clusterVersion: '4.22.1' });
      },
    ],
    ['day2', ok('day2')],
    [
      'poweroff',
      async (job) => {
        const uid = envOf(job)[BUILD_ENV.vmiUid]!;
        const vmi = await ops.api.get<Vmi>(
          VIRTUAL_MACHINE_INSTANCES,
          namesOf(job).targetVm,
          ops.name,
        );
        presentVmis.set(uid, {
          offsetSeconds: vmi.spec?.domain?.clock?.utc?.offsetSeconds,
          cdrom: (vmi.spec?.volumes ?? []).some((v) => v.name === 'cdrom'),
        });
        platform.kubevirt.powerOff(uid);
        return ok('poweroff');
      },
    ],
    [
      'present',
      ok('present', {
        kubeletCertificatesNotAfter: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      }),
    ],
    ['customize', ok('customize')],
    ['image-pin', ok('image-pin')],
    ['seal', ok('seal')],
    ['seal-check', ok('seal-check', { checked: 20 })],
    ['zero', ok('zero')],
    [
      'publish',
      async (job) => {
        const disk = await readFile(
          path.join(platform.volumePath(ops.name, namesOf(job).golden)!, DISK_FILE),
        );
        return ok('publish', {
          diskSHA256: createHash('sha256').update(disk).digest('hex'),
          diskVirtualSizeBytes: disk.length,
        });
      },
    ],
  ];
  for (const [step, result] of results) platform.jobResults.set(`${name}/${step}`, result);
}

describe('CRCBundle build', () => {
  const created: string[] = [];
  let failures = 0;

  beforeAll(async () => {
    await world.startOperator({
      config: { operatorNamespace: ops.name },
      bundles: { accept: (b) => b.metadata?.name?.endsWith(suffix) ?? false },
    });
    await ops.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'build-pull-secret', namespace: ops.name },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': JSON.stringify(PULL_SECRET) },
    } as Secret);
    await ops.api.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'build-machineconfigs', namespace: ops.name },
      data: { '99-extra.yaml': 'kind: MachineConfig\n' },
    } as KubeObject);
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

    // P2's Job, bound to the installer VMI, with the shifted clock.
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
        'InputsSnapshot',
        'InstallerCloudInit',
        'InstallerVM',
        'InstallerVMI',
        'SSHKey',
        'WorkVolume',
      ].sort(),
    );
    expect(recorded.InstallerVMI).toBe(vmi.metadata!.uid);
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

  it('builds a bundle to Ready: boot, return to the present, capture, publish, and a validation instance that boots a clone', async () => {
    const name = `build-b-${suffix}`;
    play(name);
    created.push(name);
    await ops.api.create(BUNDLES, bundle(name));
    const ready = await waitForBundle(
      name,
      (b) => ['Ready', 'Failed'].includes(b?.status?.phase ?? ''),
      'the build done',
      90_000,
    );
    expect(condition(ready, 'Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
    const build = ready!.status!.build!;
    const names = buildNames(name, build.attempt!);
    for (const stage of BUILD_STAGES)
      expect(condition(ready, stage.condition)).toMatchObject({ status: 'True' });
    const golden = path.join(world.platform.volumePath(ops.name, `${name}-golden`)!, DISK_FILE);
    const disk = await readFile(golden);
    expect(ready!.status).toMatchObject({
      qcow2PVCRef: { name: `${name}-golden` },
      qcow2PVCNamespace: ops.name,
      sshKeySecretRef: { name: `${name}-ssh-key` },
      ocpVersion: '4.22.1',
      diskSHA256: createHash('sha256').update(disk).digest('hex'),
      diskVirtualSizeBytes: disk.length,
    });
    // The target VM came back in the present: a second VMI, with no clock offset and no cdrom.
    const powerOffs = (build.steps ?? []).filter((s) => s.name.endsWith('-poweroff'));
    expect(powerOffs.map((s) => s.name).sort()).toEqual(['P11-poweroff', 'P7-poweroff']);
    const [p7, p11] = [
      powerOffs.find((s) => s.name === 'P7-poweroff')!,
      powerOffs.find((s) => s.name === 'P11-poweroff')!,
    ];
    expect(p11.vmiUID).not.toBe(p7.vmiUID);
    expect(build.objects!.find((o) => o.role === 'TargetVMI')!.uid).toBe(p11.vmiUID);
    expect(presentVmis.get(p11.vmiUID!)).toEqual({ offsetSeconds: undefined, cdrom: false });
    expect(presentVmis.get(p7.vmiUID!)).toEqual({ offsetSeconds: -86400, cdrom: true });
    // Validated through a clone booted by the instance path; then only what the bundle publishes stays.
    await waitForBundle(
      name,
      (b) => condition(b, 'BuildCleanedUp')?.status === 'True',
      'the build cleaned up',
    );
    expect(await leftOf(build.attempt!)).toEqual({
      DataVolume: [`${name}-golden`],
      PersistentVolumeClaim: [`${name}-golden`],
      Secret: [`${name}-ssh-key`],
      ConfigMap: [`${name}-metadata`],
    });
    void names;
  });

  /** A step's Job that fails with the agent's own reason. */
  const failedStep = (step: BuildStep, reason: string, message: string) => ({
    exitCode: 1,
    reason: 'Error',
    message: JSON.stringify({ step, ok: false, reason, message }),
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
});
