import { describe, expect, test } from '@jest/globals';
import { ChecksumMismatchError, expectedDigest, verifyDigest } from './checksum-file.js';

const A = 'a'.repeat(64);
const B = 'B'.repeat(64);

describe('sha256sum listings', () => {
  const listing = [
    `${A}  crc_vfkit_4.16.0_arm64.crcbundle`,
    `${B} *crc_libvirt_4.16.0_amd64.crcbundle`,
    `${'c'.repeat(64)}  ./crc_hyperv_4.16.0_amd64.crcbundle`,
    'not a checksum line',
    '',
  ].join('\r\n');

  test.each([
    ['crc_libvirt_4.16.0_amd64.crcbundle', 'b'.repeat(64)],
    ['crc_vfkit_4.16.0_arm64.crcbundle', A],
    ['crc_hyperv_4.16.0_amd64.crcbundle', 'c'.repeat(64)],
    ['crc_libvirt_4.16.0_amd64', undefined],
    // Dots are not wildcards, and a suffix is not a match.
    ['crc_libvirt_4X16.0_amd64.crcbundle', undefined],
    ['4.16.0_amd64.crcbundle', undefined],
  ])('%s → %s', (name, digest) => {
    expect(expectedDigest(listing, name)).toBe(digest);
  });

  test('a mismatch names the file and both digests', () => {
    expect(() => verifyDigest('x.crcbundle', A, 'b'.repeat(64))).toThrow(
      new ChecksumMismatchError('x.crcbundle', A, 'b'.repeat(64)),
    );
    expect(() => verifyDigest('x.crcbundle', A, 'b'.repeat(64))).toThrow(
      `checksum mismatch for x.crcbundle: expected sha256 ${A}, got ${'b'.repeat(64)}`,
    );
    expect(() => verifyDigest('x.crcbundle', B, 'b'.repeat(64))).not.toThrow();
  });
});
