import type { CRCBundle } from '../../api/resources.js';

/**
 * The names of a bundle's objects in the operator namespace (docs/reference/naming.md#name-rules):
 * the bundle name plus a suffix.
 */
export interface BundleNames {
  golden: string;
  scratch: string;
  prepJob: string;
  sshKeySecret: string;
  metadataConfigMap: string;
  /** The prep Job's own ServiceAccount, and its Role and RoleBinding. */
  prepAccount: string;
}

export function bundleNames(bundleName: string): BundleNames {
  return {
    golden: `${bundleName}-golden`,
    scratch: `${bundleName}-scratch`,
    prepJob: `${bundleName}-prep`,
    sshKeySecret: `${bundleName}-ssh-key`,
    metadataConfigMap: `${bundleName}-metadata`,
    prepAccount: `${bundleName}-prep`,
  };
}

export function bundleArch(bundle: CRCBundle): string {
  return bundle.spec.arch || 'amd64';
}

/**
 * Where prep downloads from (docs/reference/kinds.md#bundle-reconcile): the spec's overrides, else
 * the published libvirt bundle and its checksum file under `<mirror>/<version>/`.
 */
export function bundleUrls(
  bundle: CRCBundle,
  mirrorUrl: string,
): { bundleUrl: string; sha256Url: string } {
  const version = bundle.spec.version ?? '';
  const base = `${mirrorUrl.replace(/\/+$/, '')}/${version}`;
  return {
    bundleUrl:
      bundle.spec.bundleURL || `${base}/crc_libvirt_${version}_${bundleArch(bundle)}.crcbundle`,
    sha256Url: bundle.spec.sha256URL || `${base}/sha256sum.txt`,
  };
}
