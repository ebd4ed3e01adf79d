import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createPrivateFile, writePrivateFile } from './private-file.js';

const SECRET = 'client-key-data: c2VjcmV0\n';
const mode = async (file: string): Promise<number> => (await lstat(file)).mode & 0o777;
/** Another user's files can only be made by root; elsewhere those cases cannot be set up. */
const asRoot = process.getuid?.() === 0 ? it : it.skip;

describe('writePrivateFile', () => {
  let root: string;
  let umask: number;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'gc-private-file-'));
    // The modes come from the writer, not from a strict umask.
    umask = process.umask(0);
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(root, { recursive: true, force: true });
  });

  it('creates the file 0600 and every folder it makes 0700', async () => {
    const file = path.join(root, 'a', 'b', 'guest.kubeconfig');
    await writePrivateFile(file, SECRET);
    expect(await readFile(file, 'utf8')).toBe(SECRET);
    expect(await mode(file)).toBe(0o600);
    expect(await mode(path.join(root, 'a'))).toBe(0o700);
    expect(await mode(path.join(root, 'a', 'b'))).toBe(0o700);
    // Nothing else is left in the folder (no temporary file).
    expect(await readdir(path.join(root, 'a', 'b'))).toEqual(['guest.kubeconfig']);
  });

  it('opens a new file 0600 before anything is written to it, and never an existing path', async () => {
    const file = path.join(root, 'new.kubeconfig');
    const handle = await createPrivateFile(file);
    try {
      const created = await handle.stat();
      expect(created.mode & 0o777).toBe(0o600);
      expect(created.size).toBe(0);
    } finally {
      await handle.close();
    }
    await expect(createPrivateFile(file)).rejects.toMatchObject({ code: 'EEXIST' });
    const link = path.join(root, 'link');
    await symlink(path.join(root, 'nowhere'), link);
    await expect(createPrivateFile(link)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(lstat(path.join(root, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("follows the caller's own links above the folders it makes", async () => {
    // A user's kubeconfig-path may sit under a linked folder (macOS: /tmp is one).
    await mkdir(path.join(root, 'real'));
    await symlink(path.join(root, 'real'), path.join(root, 'linked'));
    await writePrivateFile(path.join(root, 'linked', 'new', 'guest.kubeconfig'), SECRET);
    expect(await readFile(path.join(root, 'real', 'new', 'guest.kubeconfig'), 'utf8')).toBe(SECRET);
    expect(await mode(path.join(root, 'real', 'new'))).toBe(0o700);
  });

  it('never writes the content into a file that others could read', async () => {
    const file = path.join(root, 'guest.kubeconfig');
    await writeFile(file, 'old');
    await chmod(file, 0o644);
    // Holds the file that was there, to see whether the content ever went into it.
    const before = await open(file, 'r');
    try {
      await writePrivateFile(file, SECRET);
      expect((await before.readFile()).toString()).toBe('old');
      expect((await before.stat()).mode & 0o777).toBe(0o644);
    } finally {
      await before.close();
    }
    expect(await readFile(file, 'utf8')).toBe(SECRET);
    expect(await mode(file)).toBe(0o600);
  });

  it('replaces a file of its own (a retried step writes it again)', async () => {
    const file = path.join(root, 'guest.kubeconfig');
    await writePrivateFile(file, 'first');
    await writePrivateFile(file, SECRET);
    expect(await readFile(file, 'utf8')).toBe(SECRET);
    expect(await mode(file)).toBe(0o600);
  });

  it('refuses a symbolic link at the path, and writes nothing where it points', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await writeFile(elsewhere, 'keep', { mode: 0o644 });
    const file = path.join(root, 'guest.kubeconfig');
    await symlink(elsewhere, file);
    await expect(writePrivateFile(file, SECRET)).rejects.toThrow(
      `${file} is a symbolic link; refusing to follow it`,
    );
    expect(await readFile(elsewhere, 'utf8')).toBe('keep');
    expect((await lstat(file)).isSymbolicLink()).toBe(true);

    // A link to nowhere would create its target.
    const dangling = path.join(root, 'dangling.kubeconfig');
    const nowhere = path.join(root, 'nowhere');
    await symlink(nowhere, dangling);
    await expect(writePrivateFile(dangling, SECRET)).rejects.toThrow('is a symbolic link');
    await expect(lstat(nowhere)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a symbolic link in place of a folder it makes, and tightens one of its own', async () => {
    const planted = path.join(root, 'attacker');
    await mkdir(planted, { mode: 0o777 });
    await symlink(planted, path.join(root, 'guestcluster'));
    const file = path.join(root, 'guestcluster', 'guest.kubeconfig');
    await expect(writePrivateFile(file, SECRET, root)).rejects.toThrow(
      `${path.join(root, 'guestcluster')} is a symbolic link, not a folder; refusing to follow it`,
    );
    expect(await readdir(planted)).toEqual([]);

    // Its own folder from an earlier step, left open to others: closed again.
    await rm(path.join(root, 'guestcluster'));
    await mkdir(path.join(root, 'guestcluster'), { mode: 0o755 });
    await writePrivateFile(file, SECRET, root);
    expect(await mode(path.join(root, 'guestcluster'))).toBe(0o700);
    expect(await readFile(file, 'utf8')).toBe(SECRET);
  });

  it('refuses what is not a file at the path', async () => {
    const file = path.join(root, 'guest.kubeconfig');
    await mkdir(file);
    await expect(writePrivateFile(file, SECRET)).rejects.toThrow(
      `${file} is not a regular file; refusing to replace it`,
    );
  });

  asRoot("refuses another user's file at the path, and another user's folder", async () => {
    const file = path.join(root, 'guest.kubeconfig');
    await writeFile(file, 'theirs', { mode: 0o666 });
    await chown(file, 4242, 4242);
    await expect(writePrivateFile(file, SECRET)).rejects.toThrow(
      `${file} belongs to user 4242, not to this one (0); refusing to replace it`,
    );
    expect(await readFile(file, 'utf8')).toBe('theirs');

    const folder = path.join(root, 'guestcluster');
    await mkdir(folder, { mode: 0o777 });
    await chown(folder, 4242, 4242);
    await expect(writePrivateFile(path.join(folder, 'x'), SECRET, root)).rejects.toThrow(
      `${folder} belongs to user 4242, not to this one (0); refusing to use it`,
    );
    expect(await readdir(folder)).toEqual([]);
    expect((await stat(folder)).mode & 0o777).toBe(0o777);
  });
});
