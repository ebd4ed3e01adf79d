import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from '@jest/globals';
import tar from 'tar-stream';
import { packFiles, unpackInto } from './tar-streams.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('tar streams', () => {
  it('round-trip files into a folder, 0600, without links or members outside it', async () => {
    const source = await mkdtemp(path.join(os.tmpdir(), 'tar-source-'));
    dirs.push(source);
    await writeFile(path.join(source, 'binary'), Buffer.alloc(300_000, 7));
    const archive = await packFiles([
      { name: 'auth/kubeconfig', content: 'config' },
      { name: 'install.ign', content: Buffer.from('{}') },
      {
        name: 'bin/openshift-install',
        content: { path: path.join(source, 'binary') },
        mode: 0o755,
      },
    ]);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tar-test-'));
    dirs.push(dir);
    const { sink, done } = unpackInto(dir);
    Readable.from([archive]).pipe(sink);
    expect((await done).sort()).toEqual([
      'auth/kubeconfig',
      'bin/openshift-install',
      'install.ign',
    ]);
    expect(await readFile(path.join(dir, 'bin/openshift-install'))).toEqual(
      Buffer.alloc(300_000, 7),
    );
    expect(await readFile(path.join(dir, 'auth/kubeconfig'), 'utf8')).toBe('config');
    expect((await stat(path.join(dir, 'install.ign'))).mode & 0o777).toBe(0o600);
  });

  it('refuse to pack or unpack a member that leaves its folder, and skip links', async () => {
    await expect(packFiles([{ name: '../etc/passwd', content: 'x' }])).rejects.toThrow(
      'would leave its folder',
    );
    const pack = tar.pack();
    pack.entry({ name: 'link', type: 'symlink', linkname: '/etc/shadow' });
    pack.entry({ name: '../../escape' }, 'x');
    pack.finalize();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tar-test-'));
    dirs.push(dir);
    const { sink, done } = unpackInto(dir);
    pack.pipe(sink);
    await expect(done).rejects.toThrow('would leave its folder');
    expect(await readdir(dir)).toEqual([]);
  });
});
