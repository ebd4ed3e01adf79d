import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_MAPS, JOBS, PODS, PVCS, SERVICES } from '../../operator/api/core-resources.js';
import type { CRCBundle } from '../../operator/api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../operator/api/resources.js';
import { NETWORK_POLICIES } from '../../operator/controllers/clusterinstance/crc/crc-network-policy.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../operator/api/platform-resources.js';
import { LABEL_BUILD_ATTEMPT } from '../../operator/controllers/bundlebuild/build-meta.js';
import { buildNames } from '../../operator/controllers/bundlebuild/build-names.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../operator/kube/resource-type.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { BUILD_ENV } from '../../contracts/bundle-build.js';
import type { BuildStep, BuildStepOutputs } from '../../contracts/bundle-build.js';
import type { ContainerResult } from '../../dev/platform/local-pod.js';
import {
  AUTHORIZED_KEYS_OFFSET,
  DISK_FILE,
  embedAuthorizedKeys,
} from '../../dev/platform/simulated-disk.js';
import type { SimulatedPlatform } from '../../dev/platform/simulated-platform.js';

/*
 * What the bundle-build tests share: the inputs, a bundle, and the player of a build's steps,
 * which plays each step's Job (the agent's tools, oc and coreos-installer, and the build guest
 * cannot run on this machine) and the guest's part where a step changes the VM: the installed
 * disk, a poweroff.
 */

export const PULL_SECRET = { auths: { 'quay.io': { auth: 'dXNlcjpwYXNz' } } };
export const RELEASE = `quay.io/openshift-release-dev/ocp-release@sha256:${'c'.repeat(64)}`;

/** Every kind a build makes, or KubeVirt, CDI and the Job controller make for it. */
export const BUILD_KINDS: ResourceType[] = [
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
  NETWORK_POLICIES,
];

/** The pull secret and a manifest ConfigMap the builds refer to, in the operator namespace. */
export async function createBuildInputs(api: ApiClient, namespace: string): Promise<void> {
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'build-pull-secret', namespace },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': JSON.stringify(PULL_SECRET) },
  } as Secret);
  await api.create(CONFIG_MAPS, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'build-machineconfigs', namespace },
    data: { '99-extra.yaml': 'kind: MachineConfig\n' },
  } as KubeObject);
}

export function buildBundle(
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

export const condition = (
  b: CRCBundle | undefined,
  type: string,
): NonNullable<NonNullable<CRCBundle['status']>['conditions']>[number] | undefined =>
  b?.status?.conditions?.find((c) => c.type === type);

/** The result a step's Job leaves on success. */
export function played<S extends BuildStep>(
  step: S,
  outputs: BuildStepOutputs[S],
): ContainerResult {
  return { exitCode: 0, reason: 'Completed', message: JSON.stringify({ step, ok: true, outputs }) };
}

/** A step's Job that fails with the agent's own reason. */
export function failedStep(step: BuildStep, reason: string, message: string): ContainerResult {
  return {
    exitCode: 1,
    reason: 'Error',
    message: JSON.stringify({ step, ok: false, reason, message }),
  };
}

/** What is left of a build attempt, kind by kind. */
export async function leftOf(
  api: ApiClient,
  namespace: string,
  attempt: string,
): Promise<Record<string, string[]>> {
  const left: Record<string, string[]> = {};
  for (const type of BUILD_KINDS) {
    const items = (
      await api.list<KubeObject>(type, {
        namespace,
        labelSelector: `${LABEL_BUILD_ATTEMPT}=${attempt}`,
      })
    ).items;
    if (items.length) left[type.kind] = items.map((o) => o.metadata!.name!);
  }
  return left;
}

type Vmi = KubeObject & {
  spec?: {
    domain?: { clock?: { utc?: { offsetSeconds?: number } } };
    volumes?: { name: string }[];
  };
};

/** What the player saw of the guests it powered off, by VMI UID. */
export type SeenVmis = Map<string, { offsetSeconds: number | undefined; cdrom: boolean }>;

/**
 * Plays every step of the build of bundle `name`: each Job ends with the step's result;
 * install-wait writes the installed disk (the build key's public half in the simulated disk
 * record), poweroff powers the guest off, publish measures the golden disk. `before` runs
 * first for a step (a test holds a stage there).
 */
export function playBuild(
  platform: SimulatedPlatform,
  api: ApiClient,
  namespace: string,
  name: string,
  before: Partial<Record<BuildStep, () => Promise<void>>> = {},
): SeenVmis {
  const seen: SeenVmis = new Map();
  const ok = (step: BuildStep, outputs: Record<string, unknown> = {}) =>
    played(step, outputs as never);
  const envOf = (job: Job) =>
    Object.fromEntries(
      (job.spec.template.spec.containers[0]!.env ?? []).map((e) => [e.name, e.value ?? '']),
    );
  const namesOf = (job: Job) => buildNames(name, job.metadata!.labels![LABEL_BUILD_ATTEMPT]!);
  const disk = (job: Job, claim: string) =>
    path.join(platform.volumePath(namespace, claim)!, DISK_FILE);
  const steps: Record<BuildStep, (job: Job) => ContainerResult | Promise<ContainerResult>> = {
    resolve: () =>
      ok('resolve', {
        ocpVersion: '4.22.1',
        releaseDigest: `sha256:${'c'.repeat(64)}`,
        isoUrl: 'https://mirror.example.test/live.iso',
        isoSha256: 'd'.repeat(64),
      }),
    'dns-check': () => ok('dns-check', { answered: 'api-int.crc.testing=192.168.126.11' }),
    ignition: () =>
      ok('ignition', { certificateNotBefore: new Date(Date.now() - 86_400_000).toISOString() }),
    iso: () => ok('iso', { liveIsoSha256: 'e'.repeat(64) }),
    'install-wait': async (job) => {
      const key = await api.get<Secret>(SECRETS, namesOf(job).sshKey, namespace);
      const installed = Buffer.alloc(2 * AUTHORIZED_KEYS_OFFSET);
      embedAuthorizedKeys(installed, Buffer.from(key.data!['id_ecdsa.pub']!, 'base64').toString());
      await writeFile(disk(job, namesOf(job).rootDisk), installed);
      return ok('install-wait', { clusterVersion: '4.22.1' });
    },
    day2: () => ok('day2'),
    poweroff: async (job) => {
      const uid = envOf(job)[BUILD_ENV.vmiUid]!;
      const vmi = await api.get<Vmi>(VIRTUAL_MACHINE_INSTANCES, namesOf(job).targetVm, namespace);
      seen.set(uid, {
        offsetSeconds: vmi.spec?.domain?.clock?.utc?.offsetSeconds,
        cdrom: (vmi.spec?.volumes ?? []).some((v) => v.name === 'cdrom'),
      });
      platform.kubevirt.powerOff(uid);
      return ok('poweroff');
    },
    present: () =>
      ok('present', {
        kubeletCertificatesNotAfter: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      }),
    customize: () => ok('customize'),
    'image-pin': () => ok('image-pin'),
    seal: () => ok('seal'),
    'seal-check': () => ok('seal-check', { checked: 20 }),
    zero: () => ok('zero'),
    publish: async (job) => {
      const golden = await readFile(disk(job, namesOf(job).golden));
      return ok('publish', {
        diskSHA256: createHash('sha256').update(golden).digest('hex'),
        diskVirtualSizeBytes: golden.length,
      });
    },
  };
  for (const [step, run] of Object.entries(steps) as [
    BuildStep,
    (job: Job) => Promise<ContainerResult>,
  ][])
    platform.jobResults.set(`${name}/${step}`, async (job) => {
      await before[step]?.();
      return run(job);
    });
  return seen;
}
