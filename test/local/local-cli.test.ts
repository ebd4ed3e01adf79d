import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { CommandFailedError, runCommand } from '../../dev/control-plane/run-command.js';

/**
 * `guestcluster local …` loads the local environment from dev/ at run time. What the operator's
 * image carries (dist/operator, dist/client, dist/contracts) must still run the operator and answer
 * `local` with a clear error; a build with dev/ runs the local commands.
 */
const root = projectRoot();
let workDir = '';
let productOnly = '';

/** Runs the CLI of an installation; resolves with its exit code and output either way. */
async function guestcluster(
  installation: string,
  ...args: string[]
): Promise<{ code: number | null; output: string }> {
  const cli = path.join(installation, 'dist', 'operator', 'cli', 'main.js');
  const env = { ...process.env, GUESTCLUSTER_LOCAL_DIR: path.join(workDir, 'state') };
  try {
    const result = await runCommand(process.execPath, [cli, ...args], { env });
    return { code: 0, output: result.stdout + result.stderr };
  } catch (error) {
    if (!(error instanceof CommandFailedError)) throw error;
    return { code: error.exitCode, output: error.stdout + error.stderr };
  }
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-cli-'));
  productOnly = path.join(workDir, 'image');
  for (const part of ['operator', 'client', 'contracts'])
    await cp(path.join(root, 'dist', part), path.join(productOnly, 'dist', part), {
      recursive: true,
    });
  await cp(path.join(root, 'package.json'), path.join(productOnly, 'package.json'));
  await symlink(path.join(root, 'node_modules'), path.join(productOnly, 'node_modules'));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the guestcluster CLI without dev/', () => {
  it('says the local environment is not part of the installation', async () => {
    const result = await guestcluster(productOnly, 'local', 'status');
    expect(result.code).toBe(1);
    expect(result.output).toContain('the local environment is not part of this installation');
  });

  it('still offers the operator', async () => {
    const result = await guestcluster(productOnly, 'operator', '--help');
    expect(result.code).toBe(0);
    expect(result.output).toContain('--leader-elect');
  });

  it('offers the lease commands, which load the lease client', async () => {
    const result = await guestcluster(
      productOnly,
      ...['lease', 'acquire', '--pool', 'p', '--kubeconfig', path.join(workDir, 'absent')],
    );
    expect(result.output).toContain('The kubeconfig');
    expect(result.code).toBe(2);
  });
});

describe('the guestcluster CLI of a build with dev/', () => {
  it('runs the local commands', async () => {
    const result = await guestcluster(root, 'local', 'status');
    expect(result.output).toContain('The local environment is not running');
  });
});
