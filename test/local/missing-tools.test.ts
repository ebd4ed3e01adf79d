import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandFailedError, runCommand } from '../../dev/control-plane/run-command.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { QEMU_IMG, requireTools } from '../../dev/control-plane/required-tools.js';

/**
 * A machine without qemu-img: `guestcluster local up` stops before it starts anything and names
 * the package to install. (Go is checked where the control plane is built:
 * test/control-plane/failures.test.ts.)
 */
const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
let dir = '';
/** A PATH with every program of the machine's but qemu-img. */
let pathWithoutQemuImg = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'missing-tools-'));
  pathWithoutQemuImg = path.join(dir, 'bin');
  await mkdir(pathWithoutQemuImg);
  // Links to the programs of every PATH folder, but qemu-img: only that one is missing.
  for (const folder of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter((n) => n !== QEMU_IMG.command))
      await symlink(path.join(folder, name), path.join(pathWithoutQemuImg, name)).catch(
        () => undefined,
      );
  }
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('missing tools', () => {
  it('are found on an ordinary PATH', async () => {
    await expect(requireTools([QEMU_IMG])).resolves.toBeUndefined();
  });

  it('stop `local up` before anything starts, naming the package to install', async () => {
    const localDir = path.join(dir, 'local');
    const failed = await runCommand(process.execPath, [cli, 'local', 'up'], {
      env: { ...process.env, PATH: pathWithoutQemuImg, GUESTCLUSTER_LOCAL_DIR: localDir },
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(CommandFailedError);
    const { exitCode, stderr } = failed as CommandFailedError;
    expect(exitCode).toBe(1);
    expect(stderr).toContain('no `qemu-img` command on the PATH');
    expect(stderr).toContain('apt-get install qemu-utils');
    // Nothing was started or written.
    expect(await readdir(localDir).catch(() => [])).toEqual([]);
  });
});
