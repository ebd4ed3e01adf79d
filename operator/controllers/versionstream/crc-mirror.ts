import type { HttpGetter } from './http-get.js';
import { compareVersionText, inMinor, parseReleaseVersion } from './release-version.js';

/**
 * The CRC bundle mirror (crcBundleMirrorUrl, mirror.openshift.com's
 * pub/openshift-v4/clients/crc/bundles/openshift by default): a folder per bundle version,
 * listed in the mirror's index page, each holding `crc_libvirt_<version>_<arch>.crcbundle` and
 * the `sha256sum.txt` that lists it. The OpenShift preset's bundle versions are the OpenShift
 * versions they carry, so a bundle is in a minor when its version is.
 */
export type MirrorAnswer =
  | { kind: 'found'; version: string }
  | { kind: 'none'; message: string }
  | { kind: 'failed'; message: string };

/** The versions an index page links to as folders (`<a href="4.19.8/">`), in any order. */
export function listedVersions(indexHtml: string): string[] {
  const versions = new Set<string>();
  for (const [, href] of indexHtml.matchAll(/href\s*=\s*["']([^"'?#]+)["']/gi)) {
    const folder = /(?:^|\/)([^/]+)\/$/.exec(href!)?.[1];
    if (folder && parseReleaseVersion(folder)) versions.add(folder);
  }
  return [...versions];
}

/** The libvirt bundle file of a version, as bundle-prep downloads it. */
export const bundleFileName = (version: string, arch: string): string =>
  `crc_libvirt_${version}_${arch}.crcbundle`;

/** Whether a sha256sum.txt lists `fileName` (lines of `<hex>  <file>`, `*` for binary mode). */
export function checksumLists(sha256sums: string, fileName: string): boolean {
  return sha256sums
    .split('\n')
    .some((line) => /^[0-9a-f]{64}\s+\*?(.+)$/i.exec(line.trim())?.[1] === fileName);
}

/**
 * The newest bundle of `minor` for `arch` that the mirror publishes (or exactly `pin`): folders
 * are tried newest first until one's sha256sum.txt lists the bundle.
 */
export async function newestMirrorBundle(
  http: HttpGetter,
  baseUrl: string,
  minor: string,
  arch: string,
  pin?: string,
): Promise<MirrorAnswer> {
  const index = await http.get(`${baseUrl}/`, 'text/html');
  if (index.kind !== 'ok') return { kind: 'failed', message: index.message };
  const candidates = listedVersions(index.text)
    .filter((version) => (pin ? version === pin : inMinor(version, minor)))
    .sort((a, b) => compareVersionText(b, a));
  for (const version of candidates) {
    const sums = await http.get(`${baseUrl}/${version}/sha256sum.txt`, 'text/plain');
    if (sums.kind === 'failed') return { kind: 'failed', message: sums.message };
    if (sums.kind === 'ok' && checksumLists(sums.text, bundleFileName(version, arch)))
      return { kind: 'found', version };
  }
  return {
    kind: 'none',
    message: `the CRC mirror ${baseUrl} publishes no ${arch} libvirt bundle of ${pin ?? minor}`,
  };
}
