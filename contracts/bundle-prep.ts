import { GUESTCLUSTER_API_VERSION, KINDS } from './api.js';
import { LABEL_CRC_BUNDLE, LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from './labels.js';

/**
 * The bundle-prep contract between the CRCBundle controller and crc-agent's bundle-prep mode:
 * the Job's environment and mounts, the bundle's members, the files written to the golden and
 * scratch volumes, and the Secret and ConfigMap published for the bundle (which the controller
 * reads back into the CRCBundle's status).
 */

/** The environment variables of the prep Job. */
export const PREP_ENV = {
  bundleUrl: 'BUNDLE_URL',
  sha256Url: 'SHA256_URL',
  /** The operator namespace: where the Secret and the ConfigMap are published. */
  namespace: 'NAMESPACE',
  bundleName: 'BUNDLE_NAME',
  bundleUid: 'BUNDLE_UID',
  sshSecretName: 'SSH_SECRET_NAME',
  metadataConfigMapName: 'METADATA_CONFIGMAP_NAME',
  goldenDir: 'GOLDEN_DIR',
  scratchDir: 'SCRATCH_DIR',
  terminationMessagePath: 'TERMINATION_MESSAGE_PATH',
} as const;

/** Where the prep Job mounts the golden and scratch PVCs. */
export const PREP_DIRS = { golden: '/golden', scratch: '/work' } as const;

/** The three members taken from `<bundle dir>/` in the archive; everything else is skipped. */
export const BUNDLE_MEMBERS = {
  disk: 'crc.qcow2',
  sshKey: 'id_ecdsa_crc',
  info: 'crc-bundle-info.json',
} as const;

export type BundleMember = keyof typeof BUNDLE_MEMBERS;

/** Files in SCRATCH_DIR (downloads) and GOLDEN_DIR (the raw disk CDI clones). */
export const PREP_FILES = {
  archive: 'bundle.crcbundle',
  checksums: 'sha256sum.txt',
  disk: 'disk.img',
} as const;

/** Data key of the SSH key Secret (`<bundle>-ssh-key`). */
export const SSH_KEY_DATA_KEY = 'id_ecdsa';

/** Data keys of the metadata ConfigMap (`<bundle>-metadata`), named like the CRCBundle status fields. */
export const METADATA_KEYS = {
  ocpVersion: 'ocpVersion',
  /** Verified SHA-256 of the downloaded .crcbundle archive. */
  sha256: 'sha256',
  /** SHA-256 of the golden raw disk.img. */
  diskSha256: 'diskSHA256',
  /** Virtual size of the golden disk in bytes, as a decimal string. */
  diskVirtualSizeBytes: 'diskVirtualSizeBytes',
} as const;

/** The CRCBundle labels, on everything made for a bundle (PVCs, Job, pod, Secret, ConfigMap). */
export function bundleLabels(bundleName: string): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_CRC_BUNDLE]: bundleName };
}

/**
 * The controller owner reference to the cluster-scoped CRCBundle. Without blockOwnerDeletion:
 * setting it would take a permission on the bundle's finalizers that the prep Job does not have.
 */
export function bundleOwnerReference(
  bundleName: string,
  bundleUid: string,
): { apiVersion: string; kind: string; name: string; uid: string; controller: boolean } {
  return {
    apiVersion: GUESTCLUSTER_API_VERSION,
    kind: KINDS.bundle,
    name: bundleName,
    uid: bundleUid,
    controller: true,
  };
}

/** The bundle's file name, the last segment of the URL's path (query and fragment ignored). */
export function bundleFileName(bundleUrl: string): string {
  const segments = new URL(bundleUrl).pathname.split('/');
  return decodeURIComponent(segments[segments.length - 1] ?? '');
}

/** The archive's top-level folder: the file name without `.crcbundle`. */
export function bundleDirName(fileName: string): string {
  return fileName.endsWith('.crcbundle') ? fileName.slice(0, -'.crcbundle'.length) : fileName;
}
