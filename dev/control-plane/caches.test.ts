import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { withCacheLock } from './cache-lock.js';
import { isExecutable } from './go-build.js';
import { cachedCrds } from './platform-crds/crd-cache.js';
import { KUBEVIRT_CRDS } from './platform-crds/kubevirt-crds.js';
import { projectRoot } from './project-root.js';

/** A small real Go build through the same path as the control plane's (gofmt from the toolchain). */
const PLAN_SOURCE = `{ name: 'gofmt', requires: [], replaces: () => Promise.resolve([]), ldflags: '-s -w', packages: { gofmt: 'cmd/gofmt' } }`;
const BUILT_GO_BUILD = path.join(projectRoot(), 'dist', 'dev', 'control-plane', 'go-build.js');

/** Runs an ES module script in a Node process of its own; resolves with its output. */
function runNode(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`exited with ${code}: ${output}`)),
    );
  });
}

describe('the caches of the local control plane', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-cache-'));
    dirs.push(dir);
    return dir;
  }

  it('lets two first builds at once, in two processes, share one build', async () => {
    const cache = await tempDir();
    const binDir = path.join(cache, 'gofmt', 'bin');
    // Each process runs the built module, as `npm test` and `npm start` do.
    const script = `
      const { ensureBinaries } = await import(${JSON.stringify(BUILT_GO_BUILD)});
      await ensureBinaries(['gofmt'], ${JSON.stringify(binDir)}, ${JSON.stringify(path.join(cache, 'build'))},
        (line) => console.log(line), [${PLAN_SOURCE}]);`;
    const [first, second] = await Promise.all([runNode(script), runNode(script)]);

    expect(await isExecutable(path.join(binDir, 'gofmt'))).toBe(true);
    const output = first + second;
    expect(output.match(/Building gofmt/g)).toHaveLength(1);
    expect(output.match(/Waiting for process \d+, which is building/g)).toHaveLength(1);
    // Each build's work folder is its own and gone afterwards; so is the lock.
    expect(await readdir(path.join(cache, 'build'))).toEqual([]);
    expect(await readdir(path.join(cache, 'gofmt'))).toEqual(['bin']);
  });

  it('lets two first extractions of CRDs at once share one, with the same result', async () => {
    const cacheDir = await tempDir();
    const lines: string[] = [];
    const [first, second] = await Promise.all(
      ['first', 'second'].map((who) =>
        cachedCrds(KUBEVIRT_CRDS, { cacheDir, log: (line) => lines.push(`${who}: ${line}`) }),
      ),
    );

    expect(first!.map((crd) => crd.metadata.name)).toEqual([
      'virtualmachines.kubevirt.io',
      'virtualmachineinstances.kubevirt.io',
    ]);
    expect(second).toEqual(first);
    expect(lines.filter((line) => line.includes('Obtaining the CRDs'))).toHaveLength(1);
    expect(await readdir(cacheDir)).toEqual([`${KUBEVIRT_CRDS.key}.json`]);
    const cached: unknown = JSON.parse(
      await readFile(path.join(cacheDir, `${KUBEVIRT_CRDS.key}.json`), 'utf8'),
    );
    expect(cached).toEqual(first);
  });

  it('takes over a lock whose holder died', async () => {
    const dir = await tempDir();
    const lockFile = path.join(dir, 'build.lock');
    // A process that has exited: its PID names no running process any more.
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    await writeFile(lockFile, `${dead.pid} abandoned`);

    const result = await withCacheLock(lockFile, () => Promise.resolve('ran'));

    expect(result).toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });
});
