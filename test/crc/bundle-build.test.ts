import { randomBytes } from 'node:crypto';
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
import { BUILD_ENV } from '../../contracts/bundle-build.js';
import type { BuildStep, BuildStepOutputs } from '../../contracts/bundle-build.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';

const world = useWorld({
  namespace: 'bundle-build',
  operatorNamespace: 'bundle-build-op',
  // Build guests boot no CRC guest API.
  platform: { crc: { guestApi: 'never-ready' } },
});
const { operatorNs: ops } = world;

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

const waitForBundle = (name: string, until: (b: CRCBundle | undefined) => boolean, what: string) =>
  waitFor<CRCBundle>(ops.kubeConfig, {
    type: BUNDLES,
    name,
    until,
    description: what,
    timeoutMs: 60_000,
  });
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

describe('CRCBundle build', () => {
  const created: string[] = [];

  beforeAll(async () => {
    await world.startOperator({
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
});
