import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../client/api/resources.js';
import type { ClusterInstance, ClusterPool } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES, POOLS, SECRETS } from '../../client/api/resources.js';
import { VIRTUAL_MACHINES } from '../../operator/api/platform-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { instancesTornDown } from '../support/fixtures/pool-fixtures.js';
import { PVCS } from '../../client/api/core-resources.js';
import { LABEL_BUILD_ATTEMPT } from '../../operator/controllers/bundlebuild/build-meta.js';
import { buildNames } from '../../operator/controllers/bundlebuild/build-names.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { BUILD_STAGES } from '../../operator/controllers/bundlebuild/build-stages.js';
import type { VmiObject } from '../../dev/platform/host/platform-kinds.js';
import { SimulatedBuildGuests } from '../../dev/platform/build/simulated-build-guests.js';
import {
  playIso,
  playResolve,
  SIMULATED_RELEASE,
} from '../../dev/platform/build/simulated-build-tools.js';
import { DISK_FILE } from '../../dev/platform/disks/simulated-disk.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { TestNamespace } from '../support/cluster.js';
import { useWorld } from '../support/world.js';
import { ObjectHistory } from '../support/object-history.js';
import {
  buildBundle as bundle,
  condition,
  createBuildInputs,
  leftOf as leftOfBuild,
  played,
} from '../support/fixtures/bundle-build-player.js';

// The file's namespace is the operator's: the build's objects and the validation instance live
// there, and it is not opted in (a validation instance needs no opt-in). The consumers are a
// tenant's, in an opted-in namespace the platform also serves. Build VMs boot simulated build
// guests; the validation instance's and the consumers' CRC guests run a guest API.
const world = useWorld({ namespace: 'bundle-build-agent' });
const { ns: ops } = world;

/** The installer VM's cloud-init user data, from the Secret its VMI names (as virt-launcher reads it). */
async function installerUserData(vmi: VmiObject): Promise<string | undefined> {
  const volume = (vmi.spec?.volumes ?? []).find((v) => 'cloudInitNoCloud' in v) as
    { cloudInitNoCloud?: { secretRef?: { name: string } } } | undefined;
  const name = volume?.cloudInitNoCloud?.secretRef?.name;
  if (!name) return undefined;
  const secret = await ops.api.get<Secret>(SECRETS, name, vmi.metadata!.namespace);
  const data = secret.data?.userdata ?? secret.data?.userData;
  return data ? Buffer.from(data, 'base64').toString() : undefined;
}

const suffix = randomBytes(3).toString('hex');
const waitForBundle = (
  name: string,
  until: (b: CRCBundle | undefined) => boolean,
  what: string,
  timeoutMs = 60_000,
) =>
  waitFor<CRCBundle>(ops.kubeConfig, { type: BUNDLES, name, until, description: what, timeoutMs });
const leftOf = (attempt: string) => leftOfBuild(ops.api, ops.name, attempt);

/** What crc-kubevirt-v1 fixes in a VMI template, in KubeVirt's own terms. */
const CRC_KUBEVIRT_V1_PARTS = {
  firmware: { bootloader: { bios: {} } },
  clock: { utc: {} },
  interfaces: [{ name: 'default', masquerade: {} }],
  networks: [{ name: 'default', pod: {} }],
};
type Vm = KubeObject & {
  spec?: { template?: { spec?: { domain?: Record<string, unknown>; networks?: unknown } } };
};
/** The profile's parts of a VM's VMI template. */
function profileParts(vm: Vm | undefined): unknown {
  const spec = vm?.spec?.template?.spec;
  const domain = spec?.domain as { devices?: { interfaces?: unknown } } | undefined;
  return {
    firmware: spec?.domain?.firmware,
    clock: spec?.domain?.clock,
    interfaces: domain?.devices?.interfaces,
    networks: spec?.networks,
  };
}

describe('CRCBundle build with crc-agent', () => {
  const created: string[] = [];

  let tenant: TestNamespace;

  beforeAll(async () => {
    tenant = await world.addNamespace(`bundle-consumers-${suffix}`, { enabled: true });
    await world.startPlatform({
      crc: {
        guestApi: 'per-guest',
        buildGuests: (power) =>
          new SimulatedBuildGuests({
            onPoweroff: (vmi) => power.powerOff(vmi.metadata!.uid!),
            userData: (vmi) => installerUserData(vmi),
          }),
      },
    });
    await world.startOperator({
      config: { operatorNamespace: ops.name },
      bundles: true,
    });
    await createBuildInputs(ops.api, ops.name);
  });

  it('builds a bundle to Ready with crc-agent against the simulated build guests: boot, return to the present, capture, publish, a validation instance on a clone', async () => {
    const name = `build-r-${suffix}`;
    const { platform } = world;
    const work = (job: Job) =>
      platform.volumePath(
        ops.name,
        buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!).work,
      )!;
    // oc, openshift-install and coreos-installer cannot run here: their steps' files are played;
    // the build DNS Service has no ClusterIP route on this machine: its check is played.
    platform.jobResults.set(`${name}/resolve`, async (job) =>
      played('resolve', await playResolve(work(job))),
    );
    platform.jobResults.set(`${name}/iso`, async (job) => {
      const names = buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
      await playIso(work(job), platform.volumePath(ops.name, names.liveIso)!);
      return played('iso', { liveIsoSha256: 'e'.repeat(64) });
    });
    platform.jobResults.set(
      `${name}/dns-check`,
      played('dns-check', { answered: 'api-int.crc.testing=192.168.126.11' }),
    );
    // Short agent waits: the simulated guest answers at once.
    platform.agentEnv.set(name, {
      CRC_AGENT_RETRY_INTERVAL: '50ms',
      CRC_AGENT_SSH_WAIT_TIMEOUT: '20s',
      CRC_AGENT_CLUSTER_POLL_TIMEOUT: '20s',
    });
    created.push(name);
    // The validation instance and its VM go with the build's cleanup: their history stays.
    const vms = await ObjectHistory.start<Vm>(ops.api, VIRTUAL_MACHINES, ops.name);
    const instances = await ObjectHistory.start<ClusterInstance>(ops.api, INSTANCES, ops.name);
    await ops.api.create(BUNDLES, bundle(name, {}, world.scopeLabels));
    const ready = await waitForBundle(
      name,
      (b) => ['Ready', 'Failed'].includes(b?.status?.phase ?? ''),
      'the build done',
      110_000,
    );
    expect(condition(ready, 'Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
    const build = ready!.status!.build!;
    for (const stage of BUILD_STAGES)
      expect(condition(ready, stage.condition)).toMatchObject({ status: 'True' });
    const golden = path.join(world.platform.volumePath(ops.name, `${name}-golden`)!, DISK_FILE);
    const disk = await readFile(golden);
    expect(ready!.status).toMatchObject({
      qcow2PVCRef: { name: `${name}-golden` },
      qcow2PVCNamespace: ops.name,
      sshKeySecretRef: { name: `${name}-ssh-key` },
      ocpVersion: SIMULATED_RELEASE.ocpVersion,
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
    // (The agent checked the guest clock against each VMI's offset: -86400 s before, 0 after.)
    // Validated through a clone booted by the instance path; then only what the bundle publishes stays.
    await waitForBundle(
      name,
      (b) => condition(b, 'BuildCleanedUp')?.status === 'True',
      'the build cleaned up',
    );
    vms.stop();
    instances.stop();
    // The build's target VM and the validation instance's VM ran on the bundle's VM profile,
    // which the instance's boot-key binding recorded.
    expect(build.profile).toBe('crc-kubevirt-v1');
    const validation = build.objects!.find((o) => o.role === 'ValidationInstance')!.name;
    // Each VM as it was last (the target back in the present, with no clock offset).
    const vmOf = (vmName: string) =>
      vms.versions.findLast((v) => v.object.metadata?.name === vmName);
    expect(profileParts(vmOf(buildNames(name, build.attempt!).targetVm)?.object)).toEqual(
      CRC_KUBEVIRT_V1_PARTS,
    );
    expect(profileParts(vmOf(validation)?.object)).toEqual(CRC_KUBEVIRT_V1_PARTS);
    const bound = instances.versions.find((v) => v.object.status?.crc?.bootKey)?.object;
    expect(bound?.status?.crc?.bootKey?.vmProfile).toBe('crc-kubevirt-v1');
    expect(await leftOf(build.attempt!)).toEqual({
      DataVolume: [`${name}-golden`],
      PersistentVolumeClaim: [`${name}-golden`],
      Secret: [`${name}-ssh-key`],
      ConfigMap: [`${name}-metadata`],
    });
  });

  it('gives two pools with crcBundleRef to the built bundle Ready instances through the normal bootstrap path', async () => {
    const [built] = created;
    await createBuildInputs(tenant.api, tenant.name);
    const pool = (name: string): ClusterPool => ({
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name, namespace: tenant.name },
      spec: {
        type: 'crc',
        minSize: 1,
        maxSize: 1,
        template: {
          crcBundleRef: { name: built! },
          ocpVersion: SIMULATED_RELEASE.ocpVersion,
          memory: '4Gi',
          cores: 2,
          pullSecretRef: { name: 'build-pull-secret' },
        },
      },
    });
    await tenant.api.create(POOLS, pool('built-a'));
    await tenant.api.create(POOLS, pool('built-b'));
    try {
      for (const name of ['built-a-0', 'built-b-0']) {
        const ready = await waitFor<ClusterInstance>(tenant.kubeConfig, {
          type: INSTANCES,
          namespace: tenant.name,
          name,
          until: (i) => ['Ready', 'Failed'].includes(i?.status?.phase ?? ''),
          description: `instance ${name} Ready`,
          timeoutMs: 90_000,
        });
        expect(ready!.status!.phase).toBe('Ready');
        // It cloned the built bundle's golden disk, bound to its key and its VM profile, which
        // its VM has (the disk's guest would not come up on another machine).
        expect(ready!.status!.crc!.bootKey).toMatchObject({
          pvcName: `${built}-golden`,
          secretName: `${built}-ssh-key`,
          vmProfile: 'crc-kubevirt-v1',
        });
        const vm = await tenant.api.get<Vm>(VIRTUAL_MACHINES, name, tenant.name);
        expect(profileParts(vm)).toEqual(CRC_KUBEVIRT_V1_PARTS);
      }
    } finally {
      for (const name of ['built-a', 'built-b']) await tenant.api.delete(POOLS, name, tenant.name);
      await instancesTornDown(tenant.kubeConfig, tenant.name);
    }
  });

  it('leaves nothing of the bundle once it is deleted', async () => {
    for (const name of created) {
      const attempt = (await ops.api.get<CRCBundle>(BUNDLES, name)).status!.build!.attempt!;
      await ops.api.delete(BUNDLES, name);
      await waitForBundle(name, (b) => b === undefined, `bundle ${name} gone`);
      // What the bundle kept goes with it (the garbage collector follows its owner references).
      for (const [type, object] of [
        [SECRETS, `${name}-ssh-key`],
        [PVCS, `${name}-golden`],
      ] as const)
        await waitFor(ops.kubeConfig, {
          type,
          namespace: ops.name,
          name: object,
          until: (o) => o === undefined,
          description: `${object} gone`,
        });
      expect(await leftOf(attempt)).toEqual({});
    }
  });
});
