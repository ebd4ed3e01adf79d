import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { BundleMember } from '../../contracts/bundle-prep.js';
import { BUNDLE_MEMBERS } from '../../contracts/bundle-prep.js';

/** Where each extracted member was written. */
export type ExtractedMembers = Record<BundleMember, string>;

export class MissingMembersError extends Error {
  override name = 'MissingMembersError';
  constructor(readonly members: string[]) {
    super(`the bundle has no member ${members.join(', ')}`);
  }
}

const memberName = (name: string): string => name.replace(/^(\.\/)+/, '');

/**
 * Streams a zstd-compressed tar and writes only `<bundleDir>/crc.qcow2`, `id_ecdsa_crc` and
 * `crc-bundle-info.json` to `<outDir>/<bundleDir>/` (the key 0600); every other member is skipped
 * without being kept. Fails naming each wanted member the archive does not hold.
 */
export async function extractMembers(
  archive: string,
  bundleDir: string,
  outDir: string,
  signal: AbortSignal,
): Promise<ExtractedMembers> {
  const wanted = new Map<string, BundleMember>(
    (Object.entries(BUNDLE_MEMBERS) as [BundleMember, string][]).map(([member, file]) => [
      `${bundleDir}/${file}`,
      member,
    ]),
  );
  const targetDir = path.join(outDir, bundleDir);
  await mkdir(targetDir, { recursive: true });
  const found: Partial<ExtractedMembers> = {};

  const source = createReadStream(archive, { signal });
  const decompress = zlib.createZstdDecompress();
  const extract = tar.extract();
  source.on('error', (error) => extract.destroy(error));
  decompress.on('error', (error) => extract.destroy(error));
  source.pipe(decompress).pipe(extract);
  try {
    for await (const entry of extract) {
      const member =
        entry.header.type === 'file' ? wanted.get(memberName(entry.header.name)) : undefined;
      if (!member) {
        entry.resume();
        continue;
      }
      const target = path.join(targetDir, BUNDLE_MEMBERS[member]);
      await pipeline(
        Readable.from(entry),
        createWriteStream(target, { mode: member === 'sshKey' ? 0o600 : 0o644 }),
        { signal },
      );
      found[member] = target;
    }
  } finally {
    source.destroy();
  }
  const missing = [...wanted].filter(([, member]) => !found[member]).map(([name]) => name);
  if (missing.length > 0) throw new MissingMembersError(missing);
  return found as ExtractedMembers;
}
