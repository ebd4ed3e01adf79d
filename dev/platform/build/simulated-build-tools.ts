import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BuildStep, BuildStepOutputs } from '../../../contracts/bundle-build.js';
import {
  BUILD_DISK_FILE,
  BUILD_MOUNTS,
  BUILD_NODE,
  LABEL_BUILD_STEP,
} from '../../../contracts/bundle-build.js';
import type { ResolvedRelease } from '../../../crc-agent/bundle-build/work-files.js';
import { WORK_FILES, workPath, writeResolved } from '../../../crc-agent/bundle-build/work-files.js';
import type { Job } from '../../../operator/kube/workloads.js';
import type { ContainerResult } from '../jobs/local-pod.js';
import { writeSimulatedLiveIso } from './simulated-build-guests.js';

/**
 * What the build steps whose tools cannot run here (resolve: oc and openshift-install; iso:
 * coreos-installer) leave on the volumes, for a test that plays their results: the later steps
 * read these files, as they read the real steps' output.
 */
export const SIMULATED_RELEASE: ResolvedRelease = {
  ocpVersion: '4.22.0',
  releaseDigest: `sha256:${'1'.repeat(64)}`,
  isoUrl: 'https://rhcos.mirror.example.test/rhcos-live.x86_64.iso',
  isoSha256: '2'.repeat(64),
  cliImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'3'.repeat(64)}`,
  baremetalRuntimecfgImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'4'.repeat(64)}`,
  routesControllerImage: 'quay.io/crcont/routes-controller:4.22.0',
};

/** resolve's files on the work volume (resolved.json, an openshift-install stand-in); its outputs. */
export async function playResolve(
  workDir: string,
  release: ResolvedRelease = SIMULATED_RELEASE,
): Promise<BuildStepOutputs['resolve']> {
  const binary = workPath(workDir, WORK_FILES.openshiftInstall);
  await mkdir(path.dirname(binary), { recursive: true });
  await writeFile(binary, '#!/bin/sh\necho "openshift-install stand-in" >&2\nexit 1\n', {
    mode: 0o755,
  });
  await writeResolved(workDir, release);
  const { ocpVersion, releaseDigest, isoUrl, isoSha256 } = release;
  return { ocpVersion, releaseDigest, isoUrl, isoSha256 };
}

/** iso's disk.img on the live-ISO volume: the ISO with the live ignition the work volume holds. */
export async function playIso(workDir: string, liveIsoDir: string): Promise<void> {
  const ignition = await readFile(workPath(workDir, WORK_FILES.liveIgnition), 'utf8');
  await mkdir(liveIsoDir, { recursive: true });
  await writeSimulatedLiveIso(path.join(liveIsoDir, BUILD_DISK_FILE), ignition);
}

/** A step's result as its termination message on success. */
function succeeded<S extends BuildStep>(step: S, outputs: BuildStepOutputs[S]): ContainerResult {
  return { exitCode: 0, reason: 'Completed', message: JSON.stringify({ step, ok: true, outputs }) };
}

/** The folder of the claim a step Job mounts as `volume`, once the storage has it. */
function claimFolder(
  job: Job,
  volume: string,
  volumePath: (claim: string) => string | undefined,
): string {
  const claim = job.spec.template.spec.volumes?.find((v) => v.name === volume)
    ?.persistentVolumeClaim?.claimName;
  const folder = claim ? volumePath(claim) : undefined;
  if (!folder) throw new Error(`Job ${job.metadata?.name}: no bound volume ${volume}`);
  return folder;
}

/**
 * The release tools' stand-ins (docs/bundle-build.md#what-the-tests-only-simulate): the result of
 * a build step whose tools cannot run on this machine, played as the tests play it, for every
 * build Job of that step: resolve (oc adm release, openshift-install) leaves SIMULATED_RELEASE on
 * the work volume, iso (coreos-installer) the live ISO with the ignition the ignition step wrote,
 * and the DNS check (the build DNS Service has no ClusterIP route here) the zones' answers.
 * Undefined for the other steps, which run the agent's own code against the build guests.
 */
export async function playReleaseTool(
  job: Job,
  volumePath: (claim: string) => string | undefined,
): Promise<ContainerResult | undefined> {
  const step = job.metadata?.labels?.[LABEL_BUILD_STEP];
  if (step === 'resolve')
    return succeeded(
      'resolve',
      await playResolve(claimFolder(job, BUILD_MOUNTS.work.volume, volumePath)),
    );
  if (step === 'iso') {
    const liveIso = claimFolder(job, BUILD_MOUNTS.liveIso.volume, volumePath);
    await playIso(claimFolder(job, BUILD_MOUNTS.work.volume, volumePath), liveIso);
    const disk = await readFile(path.join(liveIso, BUILD_DISK_FILE));
    return succeeded('iso', { liveIsoSha256: createHash('sha256').update(disk).digest('hex') });
  }
  if (step === 'dns-check') {
    const ip = BUILD_NODE.internalIP;
    return succeeded('dns-check', {
      answered: `api-int.crc.testing=${ip},*.apps-crc.testing=${ip},quay.io=127.0.0.1`,
    });
  }
  return undefined;
}
