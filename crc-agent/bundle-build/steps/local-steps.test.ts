import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../logger.js';
import { loadBuildConfig } from '../build-config.js';
import { StepContext } from '../step-context.js';
import { readResolved } from '../work-files.js';
import { runIso } from './local-steps.js';
import { runResolve } from './resolve-step.js';

/**
 * The steps that run the image's tools, with tools of the test's own on PATH that record their
 * arguments: what the step asks of oc, openshift-install and coreos-installer, and what it does
 * with their answers.
 */
let dir: string;
let server: http.Server;
let downloads = 0;
const ISO = Buffer.from('pristine live iso bytes');
const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const originalPath = process.env.PATH;

const RELEASE_INFO = {
  digest: `sha256:${'d'.repeat(64)}`,
  metadata: { version: '4.22.3' },
  references: {
    spec: {
      tags: [
        { name: 'cli', from: { name: 'quay.io/cli@sha256:1' } },
        { name: 'baremetal-runtimecfg', from: { name: 'quay.io/bm@sha256:2' } },
      ],
    },
  },
};

async function tool(name: string, script: string): Promise<void> {
  const file = path.join(dir, 'bin', name);
  await writeFile(file, `#!/bin/sh\necho "$0 $*" >> "${dir}/calls"\n${script}\n`);
  await chmod(file, 0o755);
}

function context(step: 'resolve' | 'iso', env: Record<string, string> = {}): StepContext {
  const config = loadBuildConfig(step, {
    BUILD_BUNDLE_NAME: 'b',
    BUILD_BUNDLE_UID: 'u',
    BUILD_ATTEMPT: 'a',
    BUILD_RELEASE_IMAGE: `quay.io/example/release@sha256:${'e'.repeat(64)}`,
    BUILD_WORK_DIR: path.join(dir, 'work'),
    BUILD_LIVE_ISO_DIR: path.join(dir, 'live-iso'),
    BUILD_PULL_SECRET_PATH: path.join(dir, 'pull-secret.json'),
    ...env,
  });
  return new StepContext(config, createLogger(new PassThrough()), new AbortController().signal);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'local-steps-'));
  for (const folder of ['bin', 'work', 'live-iso']) await mkdir(path.join(dir, folder));
  process.env.PATH = `${path.join(dir, 'bin')}:${originalPath ?? ''}`;
  server = http.createServer((_request, response) => {
    downloads += 1;
    response.end(ISO);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  process.env.PATH = originalPath;
  server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('resolve', () => {
  it('reads the release, extracts openshift-install, finds the ISO and writes what later steps need', async () => {
    const stream = {
      architectures: {
        x86_64: {
          artifacts: {
            metal: {
              formats: { iso: { disk: { location: 'https://m/live.iso', sha256: 'ab12' } } },
            },
          },
        },
      },
    };
    await writeFile(path.join(dir, 'stream.json'), JSON.stringify(stream));
    await tool(
      'oc',
      [
        'case "$*" in',
        `  *"release info"*) echo '${JSON.stringify(RELEASE_INFO)}' ;;`,
        `  *"release extract"*) to=$(echo "$*" | sed 's/.*--to=\\([^ ]*\\).*/\\1/'); printf '#!/bin/sh\\ncat ${dir}/stream.json\\n' > "$to/openshift-install"; chmod 755 "$to/openshift-install" ;;`,
        '  *"image info"*) exit 1 ;;',
        'esac',
      ].join('\n'),
    );
    const outputs = await runResolve(context('resolve'));
    expect(outputs).toEqual({
      ocpVersion: '4.22.3',
      releaseDigest: RELEASE_INFO.digest,
      isoUrl: 'https://m/live.iso',
      isoSha256: 'ab12',
    });
    expect(await readResolved(path.join(dir, 'work'))).toMatchObject({
      cliImage: 'quay.io/cli@sha256:1',
      baremetalRuntimecfgImage: 'quay.io/bm@sha256:2',
      routesControllerImage: 'quay.io/crcont/routes-controller:latest',
    });
    const calls = await readFile(path.join(dir, 'calls'), 'utf8');
    expect(calls).toContain(`-a ${path.join(dir, 'pull-secret.json')}`);
    expect(calls).toContain('--command=openshift-install');
  });

  it('names a release that is not a payload', async () => {
    await tool('oc', `echo '{"metadata":{}}'`);
    await expect(runResolve(context('resolve'))).rejects.toMatchObject({
      reason: 'ResolveReleaseUnreadable',
    });
  });
});

describe('iso', () => {
  it('downloads the ISO once, checks its sha256 and embeds the live ignition into the live-ISO disk', async () => {
    await mkdir(path.join(dir, 'work/install'), { recursive: true });
    await writeFile(
      path.join(dir, 'work/install/bootstrap-in-place-for-live-iso.ign'),
      '{"ignition":{}}',
    );
    // iso ignition embed -f -i <ign> -o <out> <iso>: here, the out file is the ISO, then the ignition.
    await tool('coreos-installer', 'cat "$9" "$6" > "$8"');
    const env = {
      BUILD_ISO_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/live.iso`,
      BUILD_ISO_SHA256: sha(ISO),
    };
    const first = await runIso(context('iso', env));
    const disk = await readFile(path.join(dir, 'live-iso/disk.img'));
    expect(disk.toString()).toBe(`${ISO.toString()}{"ignition":{}}`);
    expect(first).toEqual({ liveIsoSha256: sha(disk) });
    await runIso(context('iso', env));
    expect(downloads).toBe(1);
  });

  it("refuses an ISO whose sha256 is not the stream metadata's", async () => {
    const env = {
      BUILD_ISO_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/other.iso`,
      BUILD_ISO_SHA256: 'f'.repeat(64),
    };
    await expect(runIso(context('iso', env))).rejects.toMatchObject({
      reason: 'ISOChecksumMismatch',
    });
  });
});

describe('a tool the image lacks', () => {
  /** PATH without the tools of this file: an image that does not carry them. */
  const withoutTools = async (run: () => Promise<unknown>): Promise<unknown> => {
    const empty = path.join(dir, 'empty-bin');
    await mkdir(empty, { recursive: true });
    process.env.PATH = empty;
    try {
      return await run().catch((error: unknown) => error);
    } finally {
      process.env.PATH = `${path.join(dir, 'bin')}:${originalPath ?? ''}`;
    }
  };

  it('is named as missing from the image, not blamed on the release or the pull secret', async () => {
    const failure = (await withoutTools(() => runResolve(context('resolve')))) as {
      reason: string;
      message: string;
    };
    expect(failure).toMatchObject({ reason: 'ResolveToolMissing' });
    expect(failure.message).toContain('"oc"');
    expect(failure.message).toContain('CRC_AGENT_IMAGE');
    expect(failure.message).not.toContain('pull secret');
  });

  it('is named for the iso step too', async () => {
    const env = {
      BUILD_ISO_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/live.iso`,
      BUILD_ISO_SHA256: sha(ISO),
    };
    const failure = (await withoutTools(() => runIso(context('iso', env)))) as {
      reason: string;
      message: string;
    };
    expect(failure).toMatchObject({ reason: 'ISOToolMissing' });
    expect(failure.message).toContain('"coreos-installer"');
    expect(failure.message).not.toContain('embed area');
  });
});
