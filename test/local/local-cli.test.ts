import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { CommandFailedError, runCommand } from '../control-plane/run-command.js';
import { projectRoot } from '../control-plane/project-root.js';
import type { LocalState } from './local-state.js';

const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');

const isAlive = (pid: number | undefined): boolean => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

describe('guestcluster local up | status | down', () => {
  let localDir = '';
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, GUESTCLUSTER_LOCAL_DIR: localDir });
  const guestcluster = (...args: string[]): ReturnType<typeof runCommand> =>
    runCommand(process.execPath, [cli, ...args], { env: env() });

  afterAll(async () => {
    // Leave nothing running, even when an assertion failed half-way.
    await guestcluster('local', 'down').catch(() => undefined);
    await rm(localDir, { recursive: true, force: true });
  });

  it('starts in the background, serves kubectl, and stops without leftovers', async () => {
    localDir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-local-'));
    const kubeconfig = path.join(localDir, 'kubeconfig');

    const up = await guestcluster('local', 'up');
    expect(up.stdout).toContain('The local environment is up');
    expect(up.stdout).toContain(`kubeconfig:  ${kubeconfig}`);
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);

    const state = JSON.parse(
      await readFile(path.join(localDir, 'state.json'), 'utf8'),
    ) as LocalState;
    const namespaces = await runCommand(path.join(state.binDir, 'kubectl'), [
      '--kubeconfig',
      kubeconfig,
      'get',
      'namespaces',
      '-o',
      'name',
    ]);
    expect(namespaces.stdout.split('\n')).toEqual(
      expect.arrayContaining(['namespace/default', 'namespace/kube-system']),
    );
    const crds = await runCommand(path.join(state.binDir, 'kubectl'), [
      '--kubeconfig',
      kubeconfig,
      'get',
      'crd',
      'clusterleases.guestcluster.opdev.io',
      '-o',
      'name',
    ]);
    expect(crds.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/clusterleases.guestcluster.opdev.io',
    );

    const status = await guestcluster('local', 'status');
    expect(status.stdout).toMatch(/kube-apiserver\s+pid \d+\s+running/);

    const again = await guestcluster('local', 'up');
    expect(again.stdout).toContain(`already running (pid ${state.pid})`);

    const down = await guestcluster('local', 'down');
    expect(down.stdout).toContain('The local environment is stopped.');
    const pids = [state.pid, ...Object.values(state.components)];
    expect(pids.filter(isAlive)).toEqual([]);
    await expect(stat(kubeconfig)).rejects.toThrow('ENOENT');

    const stopped = await guestcluster('local', 'status').catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(CommandFailedError);
    expect((stopped as CommandFailedError).stdout).toContain(
      'The local environment is not running',
    );
  });
});
