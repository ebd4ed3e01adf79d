import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EVENTS, JOBS, PVCS } from '../../operator/api/core-resources.js';
import type { CRCBundle } from '../../operator/api/resources.js';
import { BUNDLES, SECRETS } from '../../operator/api/resources.js';
import { DATA_VOLUMES, VIRTUAL_MACHINE_INSTANCES } from '../../operator/api/platform-resources.js';
import { LABEL_BUILD_ATTEMPT } from '../../operator/controllers/crcbundle/build/build-meta.js';
import { buildNames } from '../../operator/controllers/crcbundle/build/build-names.js';
import type { KubeObject } from '../../operator/kube/objects.js';
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
} from './bundle-build-player.js';

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
const bundle = buildBundle;
const leftOf = (attempt: string) => leftOfBuild(ops.api, ops.name, attempt);
/** Plays every step of a build (the failure tests: each then fails one). */
const play = (name: string): void => void playBuild(world.platform, ops.api, ops.name, name);

describe('CRCBundle build', () => {
  const created: string[] = [];
  let failures = 0;

  beforeAll(async () => {
    await world.startOperator({
      config: { operatorNamespace: ops.name },
      bundles: { accept: (b) => b.metadata?.name?.endsWith(suffix) ?? false },
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
