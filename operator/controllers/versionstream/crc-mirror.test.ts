import { describe, expect, it } from '@jest/globals';
import { bundleFileName, checksumLists, listedVersions, newestMirrorBundle } from './crc-mirror.js';
import type { GetAnswer, HttpGetter } from './http-get.js';

/** An index page as mirror.openshift.com's (Apache-style) lists the bundle folders. */
const INDEX = `<html><body><h1>Index of /pub/openshift-v4/clients/crc/bundles/openshift</h1>
<table><tr><td><a href="/pub/openshift-v4/clients/crc/bundles/">Parent Directory</a></td></tr>
<tr><td><a href="4.18.12/">4.18.12/</a></td></tr>
<tr><td><a href="4.19.3/">4.19.3/</a></td></tr>
<tr><td><a href="4.19.10/">4.19.10/</a></td></tr>
<tr><td><a href='./4.19.8/'>4.19.8/</a></td></tr>
<tr><td><a href="latest/">latest/</a></td></tr>
<tr><td><a href="sha256sum.txt">sha256sum.txt</a></td></tr></table></body></html>`;

const sums = (...files: string[]): string =>
  files.map((file, i) => `${String(i).repeat(64)}  ${file}`).join('\n') + '\n';

const mirror = (files: Record<string, string>): HttpGetter & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    get: (url) => {
      asked.push(url);
      const text = files[url];
      const answer: GetAnswer =
        text === undefined
          ? { kind: 'not-found', message: `${url} answered 404` }
          : { kind: 'ok', text };
      return Promise.resolve(answer);
    },
  };
};
const BASE = 'http://mirror.test/crc';

describe('the CRC bundle mirror', () => {
  it('lists the version folders of an index page', () => {
    expect(listedVersions(INDEX).sort()).toEqual(['4.18.12', '4.19.10', '4.19.3', '4.19.8']);
  });

  it('finds a bundle file in sha256sum.txt, also in binary mode', () => {
    const text = `${'a'.repeat(64)} *crc_libvirt_4.19.3_amd64.crcbundle\n${'b'.repeat(64)}  crc_vfkit_4.19.3_arm64.crcbundle\n`;
    expect(checksumLists(text, bundleFileName('4.19.3', 'amd64'))).toBe(true);
    expect(checksumLists(text, bundleFileName('4.19.3', 'arm64'))).toBe(false);
  });

  it('takes the newest folder of the minor whose checksums list the libvirt bundle of the arch', async () => {
    const http = mirror({
      [`${BASE}/`]: INDEX,
      // The newest folder has no amd64 libvirt bundle (yet): the next one is taken.
      [`${BASE}/4.19.10/sha256sum.txt`]: sums('crc_vfkit_4.19.10_arm64.crcbundle'),
      [`${BASE}/4.19.8/sha256sum.txt`]: sums('crc_libvirt_4.19.8_amd64.crcbundle'),
    });
    expect(await newestMirrorBundle(http, BASE, '4.19', 'amd64')).toEqual({
      kind: 'found',
      version: '4.19.8',
    });
    expect(http.asked).toEqual([
      `${BASE}/`,
      `${BASE}/4.19.10/sha256sum.txt`,
      `${BASE}/4.19.8/sha256sum.txt`,
    ]);
  });

  it('takes only the pinned version when pinned, and says when the mirror has none', async () => {
    const http = mirror({
      [`${BASE}/`]: INDEX,
      [`${BASE}/4.19.3/sha256sum.txt`]: sums('crc_libvirt_4.19.3_amd64.crcbundle'),
    });
    expect(await newestMirrorBundle(http, BASE, '4.19', 'amd64', '4.19.3')).toEqual({
      kind: 'found',
      version: '4.19.3',
    });
    expect(await newestMirrorBundle(http, BASE, '4.20', 'amd64')).toEqual({
      kind: 'none',
      message: `the CRC mirror ${BASE} publishes no amd64 libvirt bundle of 4.20`,
    });
  });

  it('reports a mirror without an index page as a failure', async () => {
    expect(await newestMirrorBundle(mirror({}), BASE, '4.19', 'amd64')).toEqual({
      kind: 'failed',
      message: `${BASE}/ answered 404`,
    });
  });
});
