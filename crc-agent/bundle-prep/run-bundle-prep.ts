import { constants } from 'node:fs';
import { access, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ApiClient } from '../../client/kube/api-client.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { readOpenshiftVersion } from './bundle-info.js';
import { expectedDigest, verifyDigest } from './checksum-file.js';
import type { BundlePrepConfig } from './config.js';
import {
  BUNDLE_MEMBERS,
  bundleDirName,
  bundleFileName,
  PREP_FILES,
} from '../../contracts/bundle-prep.js';
import { convertToRaw, inspectRawDisk, qemuImg } from './disk-image.js';
import type { DiskFacts } from './disk-image.js';
import { displayUrl, download } from './download.js';
import { extractMembers } from './extract-members.js';
import type { ExtractedMembers } from './extract-members.js';
import type { PrepStep } from './prep-error.js';
import { PrepStepError } from './prep-error.js';
import { publishBundleOutputs } from './publish-bundle.js';

export interface BundlePrepDeps {
  log: Logger;
  /** The management cluster (in-cluster config, else KUBECONFIG). */
  managementApi: () => ApiClient;
  /** Fires on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

/** Exit codes: 0 once the disk, the Secret and the ConfigMap are in place, 1 on any failure. */
export const PREP_EXIT_OK = 0;
export const PREP_EXIT_FAILED = 1;

/** Kubernetes keeps at most 4096 bytes of a container's termination message. */
const TERMINATION_MESSAGE_LIMIT = 4096;
/** sha256sum.txt lists a few files; the SSH key is a few hundred bytes. */
const MAX_SMALL_FILE_BYTES = 1024 * 1024;

const HINTS = {
  dirs: 'mount the golden PVC at GOLDEN_DIR and the scratch PVC at SCRATCH_DIR, writable by the Job',
  qemuImg: 'run the bundle-prep Job with the crc-agent image, which provides qemu-img',
  kube: 'run bundle-prep as the prep Job (in-cluster ServiceAccount), or set KUBECONFIG for a local run',
  download:
    'check that BUNDLE_URL and SHA256_URL (spec.bundleURL, spec.sha256URL) are reachable from the cluster and name a published bundle',
  noEntry:
    'SHA256_URL must list the bundle file name; point spec.sha256URL at the checksum file published with spec.bundleURL',
  mismatch:
    'the download is corrupt or the checksum file belongs to another bundle: the CRCBundle retries on its own with backoff; if it keeps failing, fix spec.bundleURL / spec.sha256URL',
  extract:
    'BUNDLE_URL must name a CRC libvirt bundle: a zstd-compressed tar with <name>/crc.qcow2, id_ecdsa_crc and crc-bundle-info.json',
  metadata: 'the bundle must hold a crc-bundle-info.json with .clusterInfo.openshiftVersion',
  convert:
    'the golden PVC needs room for the raw disk (spec.goldenVolumeSize) and the bundle a valid crc.qcow2',
  publish:
    'the prep account needs get and update on the Secret SSH_SECRET_NAME and the ConfigMap METADATA_CONFIGMAP_NAME in NAMESPACE (the operator makes both and grants exactly that), or create where one is missing; an existing object of that name must belong to this CRCBundle',
} as const;

/** Paths of one run. */
interface Layout {
  fileName: string;
  bundleDir: string;
  archive: string;
  checksums: string;
  members: string;
  disk: string;
}

function layoutOf(config: BundlePrepConfig): Layout {
  const fileName = bundleFileName(config.bundleUrl);
  const bundleDir = bundleDirName(fileName);
  return {
    fileName,
    bundleDir,
    archive: path.join(config.scratchDir, PREP_FILES.archive),
    checksums: path.join(config.scratchDir, PREP_FILES.checksums),
    members: path.join(config.scratchDir, bundleDir),
    disk: path.join(config.goldenDir, PREP_FILES.disk),
  };
}

/** Runs `work` as `step`: any failure becomes a PrepStepError that names the step. */
async function step<T>(
  name: PrepStep,
  hint: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PrepStepError) throw error;
    const message = signal.aborted
      ? `cancelled: ${errorMessage(signal.reason)}`
      : errorMessage(error);
    throw new PrepStepError(name, message, hint, { cause: error });
  }
}

async function readSmallFile(file: string, what: string): Promise<string> {
  const { size } = await stat(file);
  if (size > MAX_SMALL_FILE_BYTES)
    throw new Error(`${what} is ${size} bytes, larger than ${MAX_SMALL_FILE_BYTES}`);
  return readFile(file, 'utf8');
}

async function preflight(config: BundlePrepConfig, deps: BundlePrepDeps): Promise<ApiClient> {
  const { signal } = deps;
  await step('Preflight', HINTS.dirs, signal, async () => {
    for (const [variable, dir] of [
      ['GOLDEN_DIR', config.goldenDir],
      ['SCRATCH_DIR', config.scratchDir],
    ] as const)
      await access(dir, constants.W_OK).catch((error: unknown) => {
        throw new Error(`${variable} ${dir} is not a writable folder: ${errorMessage(error)}`);
      });
  });
  await step('Preflight', HINTS.qemuImg, signal, () => qemuImg(['--version'], signal));
  return step('Preflight', HINTS.kube, signal, () => Promise.resolve(deps.managementApi()));
}

/** Downloads the checksum file first (small), so a bundle without an entry is never downloaded. */
async function downloadVerified(
  config: BundlePrepConfig,
  layout: Layout,
  deps: BundlePrepDeps,
): Promise<string> {
  const { log, signal } = deps;
  const expected = await step('Download', HINTS.download, signal, async () => {
    await download(config.sha256Url, layout.checksums, { signal });
    return expectedDigest(
      await readSmallFile(layout.checksums, PREP_FILES.checksums),
      layout.fileName,
    );
  });
  if (!expected)
    throw new PrepStepError(
      'Verify',
      `no checksum entry found for ${layout.fileName} in ${displayUrl(config.sha256Url)}`,
      HINTS.noEntry,
    );
  log.info({ url: displayUrl(config.bundleUrl) }, `Downloading bundle ${layout.fileName}`);
  const downloaded = await step('Download', HINTS.download, signal, () =>
    download(config.bundleUrl, layout.archive, {
      signal,
      onProgress: (bytes, total) =>
        log.info({ bytes, total }, `Downloaded ${bytes} bytes of ${layout.fileName}`),
    }),
  );
  log.info({ bytes: downloaded.bytes }, `Downloaded bundle ${layout.fileName}`);
  await step('Verify', HINTS.mismatch, signal, () =>
    Promise.resolve(verifyDigest(layout.fileName, expected, downloaded.sha256)),
  );
  log.info({ sha256: downloaded.sha256 }, `Verified checksum of ${layout.fileName}`);
  return downloaded.sha256;
}

async function extract(
  config: BundlePrepConfig,
  layout: Layout,
  deps: BundlePrepDeps,
): Promise<ExtractedMembers> {
  const members = await step('Extract', HINTS.extract, deps.signal, () =>
    extractMembers(layout.archive, layout.bundleDir, config.scratchDir, deps.signal),
  );
  await rm(layout.archive, { force: true });
  deps.log.info(
    { members: Object.values(BUNDLE_MEMBERS).map((file) => `${layout.bundleDir}/${file}`) },
    `Extracted bundle members into ${layout.members}`,
  );
  return members;
}

async function convert(
  members: ExtractedMembers,
  layout: Layout,
  deps: BundlePrepDeps,
): Promise<DiskFacts> {
  const { log, signal } = deps;
  return step('Convert', HINTS.convert, signal, async () => {
    await convertToRaw(members.disk, layout.disk, signal);
    await rm(members.disk, { force: true });
    const facts = await inspectRawDisk(layout.disk, signal);
    log.info(
      { disk: layout.disk, sha256: facts.sha256, virtualSizeBytes: facts.virtualSizeBytes },
      `Converted ${BUNDLE_MEMBERS.disk} to raw ${layout.disk}`,
    );
    return facts;
  });
}

async function prepare(
  config: BundlePrepConfig,
  layout: Layout,
  deps: BundlePrepDeps,
): Promise<void> {
  const { log, signal } = deps;
  const core = await preflight(config, deps);
  const archiveSha256 = await downloadVerified(config, layout, deps);
  const members = await extract(config, layout, deps);
  const { ocpVersion, sshPrivateKey } = await step(
    'ReadMetadata',
    HINTS.metadata,
    signal,
    async () => ({
      ocpVersion: await readOpenshiftVersion(members.info, BUNDLE_MEMBERS.info),
      sshPrivateKey: await readSmallFile(members.sshKey, BUNDLE_MEMBERS.sshKey),
    }),
  );
  const disk = await convert(members, layout, deps);
  const result = await step('Publish', HINTS.publish, signal, () =>
    publishBundleOutputs(core, {
      namespace: config.namespace,
      bundleName: config.bundleName,
      bundleUid: config.bundleUid,
      sshSecretName: config.sshSecretName,
      metadataConfigMapName: config.metadataConfigMapName,
      sshPrivateKey,
      ocpVersion,
      archiveSha256,
      diskSha256: disk.sha256,
      diskVirtualSizeBytes: disk.virtualSizeBytes,
    }),
  );
  log.info(
    { secret: `${config.namespace}/${config.sshSecretName}`, outcome: result.secret },
    `Published Secret ${config.sshSecretName}`,
  );
  log.info(
    { configMap: `${config.namespace}/${config.metadataConfigMapName}`, outcome: result.configMap },
    `Published ConfigMap ${config.metadataConfigMapName}`,
  );
  log.info(
    {
      bundle: config.bundleName,
      ocpVersion,
      sha256: archiveSha256,
      diskSHA256: disk.sha256,
      diskVirtualSizeBytes: disk.virtualSizeBytes,
    },
    `Prepared bundle ${config.bundleName}: ocpVersion=${ocpVersion} sha256=${archiveSha256}`,
  );
}

async function writeTerminationMessage(file: string, error: PrepStepError): Promise<void> {
  let text = JSON.stringify({ step: error.step, message: error.message });
  if (Buffer.byteLength(text) > TERMINATION_MESSAGE_LIMIT)
    text = JSON.stringify({ step: error.step, message: error.message.slice(0, 3000) });
  await writeFile(file, text);
}

async function fail(config: BundlePrepConfig, log: Logger, error: unknown): Promise<number> {
  const failure =
    error instanceof PrepStepError
      ? error
      : new PrepStepError('Preflight', errorMessage(error), 'see the error above');
  log.error(
    { step: failure.step, error: failure.message, hint: failure.hint },
    `bundle-prep failed in step ${failure.step}: ${failure.message}. To fix: ${failure.hint}`,
  );
  if (config.terminationMessagePath)
    await writeTerminationMessage(config.terminationMessagePath, failure).catch((e: unknown) =>
      log.warn({ error: errorMessage(e) }, 'Could not write the termination message'),
    );
  return PREP_EXIT_FAILED;
}

/**
 * The bundle-prep run (docs/reference/agent-protocol.md#bundle-prep, in-process instead of a shell
 * script). Never throws; returns the exit code. Downloads and members are removed from the scratch
 * volume either way; only the raw disk stays, on the golden volume.
 */
export async function runBundlePrep(
  config: BundlePrepConfig,
  deps: BundlePrepDeps,
): Promise<number> {
  const layout = layoutOf(config);
  deps.log.info(
    { bundle: config.bundleName, namespace: config.namespace, file: layout.fileName },
    `Started bundle-prep for CRCBundle ${config.bundleName}`,
  );
  try {
    await prepare(config, layout, deps);
    return PREP_EXIT_OK;
  } catch (error) {
    return await fail(config, deps.log, error);
  } finally {
    await rm(layout.archive, { force: true }).catch(() => undefined);
    await rm(layout.members, { recursive: true, force: true }).catch(() => undefined);
  }
}
