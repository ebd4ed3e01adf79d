import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import tar from 'tar-stream';
import { extractMembers, MissingMembersError } from './extract-members.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'extract-members-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeArchive(entries: [string, string][]): Promise<string> {
  const archive = path.join(dir, 'bundle.crcbundle');
  const pack = tar.pack();
  const written = pipeline(
    Readable.from(pack),
    zlib.createZstdCompress(),
    createWriteStream(archive),
  );
  for (const [name, content] of entries) pack.entry({ name }, content);
  pack.finalize();
  await written;
  return archive;
}

const never = new AbortController().signal;

describe('extracting bundle members', () => {
  test('writes only the three members, the key 0600', async () => {
    const archive = await writeArchive([
      ['./b/kubeconfig', 'skipped'],
      ['./b/crc.qcow2', 'disk'],
      ['b/id_ecdsa_crc', 'key'],
      ['other/crc-bundle-info.json', 'wrong folder'],
      ['b/crc-bundle-info.json', '{}'],
    ]);
    const out = path.join(dir, 'out');
    const members = await extractMembers(archive, 'b', out, never);
    expect(members).toEqual({
      disk: path.join(out, 'b/crc.qcow2'),
      sshKey: path.join(out, 'b/id_ecdsa_crc'),
      info: path.join(out, 'b/crc-bundle-info.json'),
    });
    expect((await readdir(path.join(out, 'b'))).sort()).toEqual([
      'crc-bundle-info.json',
      'crc.qcow2',
      'id_ecdsa_crc',
    ]);
    expect(await readFile(members.disk, 'utf8')).toBe('disk');
    expect(await readFile(members.info, 'utf8')).toBe('{}');
    expect((await stat(members.sshKey)).mode & 0o777).toBe(0o600);
  });

  test('names every missing member', async () => {
    const archive = await writeArchive([['b/crc.qcow2', 'disk']]);
    await expect(extractMembers(archive, 'b', path.join(dir, 'out'), never)).rejects.toThrow(
      new MissingMembersError(['b/id_ecdsa_crc', 'b/crc-bundle-info.json']),
    );
  });

  test('an archive that is not zstd fails', async () => {
    const archive = path.join(dir, 'plain.tar');
    await pipeline(Readable.from(['not zstd at all']), createWriteStream(archive));
    await expect(extractMembers(archive, 'b', path.join(dir, 'out'), never)).rejects.toThrow();
  });
});
