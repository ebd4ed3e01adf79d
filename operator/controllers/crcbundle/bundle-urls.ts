import type { CRCBundle } from '../../../client/api/resources.js';

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
