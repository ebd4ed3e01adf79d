import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BuildStepOutputs } from '../../../contracts/bundle-build.js';
import { BUILD_DISK_FILE } from '../../../contracts/bundle-build.js';
import type { ResolvedRelease } from '../../../crc-agent/bundle-build/work-files.js';
import { WORK_FILES, workPath, writeResolved } from '../../../crc-agent/bundle-build/work-files.js';
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
