import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseBuildStepResult } from '../../contracts/bundle-build.js';
import { createLogger } from '../logger.js';
import { runBundleBuild } from './run-bundle-build.js';
import { imageFor, liveIso } from './steps/resolve-step.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function run(
  step: string,
  env: Record<string, string>,
): Promise<{ exit: number; log: string; result: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-build-'));
  dirs.push(dir);
  const file = path.join(dir, 'termination-log');
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exit = await runBundleBuild(step, {
    log: createLogger(sink),
    signal: new AbortController().signal,
    env: { TERMINATION_MESSAGE_PATH: file, ...env },
  });
  const result = await readFile(file, 'utf8').catch(() => '');
  return { exit, log: Buffer.concat(chunks).toString(), result };
}

describe('runBundleBuild', () => {
  it('refuses an unknown step, naming the steps', async () => {
    const { exit, log, result } = await run('reboot-everything', {});
    expect(exit).toBe(1);
    expect(log).toContain('use one of resolve, dns-check, ignition');
    expect(result).toBe('');
  });

  it('leaves BuildJobInvalid, naming the variables, for a Job without its identity', async () => {
    const { exit, result } = await run('seal', {});
    expect(exit).toBe(1);
    expect(parseBuildStepResult('seal', result)).toEqual({
      step: 'seal',
      ok: false,
      reason: 'BuildJobInvalid',
      message: expect.stringContaining(
        'BUILD_BUNDLE_NAME, BUILD_BUNDLE_UID, BUILD_ATTEMPT must be set',
      ),
    });
  });

  it('leaves the SSH key failure of a guest step as the stage reason, without reaching the guest', async () => {
    const { exit, result } = await run('day2', {
      BUILD_BUNDLE_NAME: 'b',
      BUILD_BUNDLE_UID: 'u',
      BUILD_ATTEMPT: 'a',
      BUILD_SSH_HOST: '127.0.0.1',
      BUILD_VMI_UID: 'v',
      BUILD_SSH_KEY_PATH: '/nonexistent/id_ecdsa',
    });
    expect(exit).toBe(1);
    expect(parseBuildStepResult('day2', result)).toMatchObject({
      ok: false,
      reason: 'Day2SSHKeyInvalid',
    });
  });
});

describe('release facts', () => {
  it('reads component images and the live ISO the way oc and openshift-install print them', () => {
    const info = {
      references: { spec: { tags: [{ name: 'cli', from: { name: 'quay.io/x@sha256:1' } }] } },
    };
    expect(imageFor(info, 'cli')).toBe('quay.io/x@sha256:1');
    expect(imageFor(info, 'baremetal-runtimecfg')).toBeUndefined();
    const stream = {
      architectures: {
        x86_64: {
          artifacts: {
            metal: {
              formats: { iso: { disk: { location: 'https://m/rhcos.iso', sha256: 'ab' } } },
            },
          },
        },
      },
    };
    expect(liveIso(stream, 'x86_64')).toEqual({ url: 'https://m/rhcos.iso', sha256: 'ab' });
    expect(liveIso(stream, 'aarch64')).toBeUndefined();
  });
});
