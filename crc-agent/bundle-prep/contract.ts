import type { V1OwnerReference } from '@kubernetes/client-node';

/**
 * The bundle-prep contract shared with the CRCBundle controller (crc-agent spec §8, operator spec
 * §2.4, §3.10, §3.11): the bundle's members, the files written to the golden and scratch volumes,
 * and the Secret and ConfigMap published for the bundle.
 */

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

/** The CRCBundle labels (operator spec §4.3), also on the Job, pod and PVCs. */
export const BUNDLE_LABELS = {
  managedBy: 'opdev.io/managed-by',
  crcBundle: 'opdev.io/crc-bundle',
} as const;

export const BUNDLE_MANAGED_BY = 'guestcluster-operator';

export const CRC_BUNDLE_API_VERSION = 'guestcluster.opdev.io/v1alpha1';
export const CRC_BUNDLE_KIND = 'CRCBundle';

export function bundleLabels(bundleName: string): Record<string, string> {
  return { [BUNDLE_LABELS.managedBy]: BUNDLE_MANAGED_BY, [BUNDLE_LABELS.crcBundle]: bundleName };
}

/** The controller owner reference to the cluster-scoped CRCBundle; no blockOwnerDeletion. */
export function bundleOwnerReference(bundleName: string, bundleUid: string): V1OwnerReference {
  return {
    apiVersion: CRC_BUNDLE_API_VERSION,
    kind: CRC_BUNDLE_KIND,
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
