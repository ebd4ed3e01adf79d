import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { access, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { BUILD_DISK_FILE, BUILD_NODE } from '../../../contracts/bundle-build.js';
import { rawVirtualSize, sha256File } from '../../bundle-prep/disk-image.js';
import { download } from '../../bundle-prep/download.js';
import { errorMessage, isSpawnNotFound, MissingToolError } from '../../errors.js';
import type { StepRunner } from '../step-context.js';
import { WORK_FILES, workPath } from '../work-files.js';

const run = promisify(execFile);

/**
 * Runs a tool of the image; the error names the tool, without its arguments (they hold paths to
 * secrets). A tool the image lacks is a MissingToolError, which no input can fix.
 */
export async function tool(
  command: string,
  args: readonly string[],
  signal: AbortSignal,
): Promise<string> {
  try {
    const { stdout } = await run(command, [...args], {
      signal,
      maxBuffer: 64 * 1024 * 1024,
      env: process.env,
    });
    return stdout;
  } catch (error) {
    if (isSpawnNotFound(error)) throw new MissingToolError(command);
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${command} ${args[0] ?? ''} failed: ${stderr || errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * P1's check (docs/bundle-build.md#build-dns): the build DNS answers api-int and any apps name with the node IP, and
 * forwards an external name. BUILD_DNS_PORT (a local run's) moves it off port 53.
 */
export const runDnsCheck: StepRunner<'dns-check'> = async (context) => {
  const { config } = context;
  const resolver = new Resolver({ timeout: 5_000, tries: 3 });
  resolver.setServers([`${config.dnsIp}:${config.dnsPort}`]);
  const apps = `probe-${randomBytes(4).toString('hex')}.apps-crc.testing`;
  const answers: string[] = [];
  for (const [name, want] of [
    ['api-int.crc.testing', BUILD_NODE.internalIP],
    [apps, BUILD_NODE.internalIP],
    ['quay.io', undefined],
  ] as const) {
    let addresses: string[];
    try {
      addresses = await resolver.resolve4(name);
    } catch (error) {
      throw context.fail(
        'CheckFailed',
        `the build DNS at ${config.dnsIp} gave no address for ${name} (${errorMessage(error)}); check the build-dns Deployment and that NetworkPolicies let pods reach it on port 53`,
      );
    }
    if (want && !addresses.includes(want))
      throw context.fail(
        'CheckFailed',
        `the build DNS answers ${name} with ${addresses.join(', ')}, not ${want}; check its zone ConfigMap`,
      );
    answers.push(`${name.startsWith('probe-') ? '*.apps-crc.testing' : name}=${addresses[0]}`);
  }
  return { answered: answers.join(',') };
};

/** P13's part that reads the disk: the golden disk's sha256 and virtual size. */
export const runPublish: StepRunner<'publish'> = async (context) => {
  const disk = path.join(context.config.paths.golden, BUILD_DISK_FILE);
  await access(disk).catch(() => {
    throw context.fail(
      'DiskMissing',
      `${disk} is missing: the golden DataVolume must have been cloned (P12) before publishing`,
    );
  });
  const [diskSHA256, diskVirtualSizeBytes] = await Promise.all([
    sha256File(disk, context.signal),
    rawVirtualSize(disk, context.signal),
  ]);
  return { diskSHA256, diskVirtualSizeBytes };
};

/**
 * P3 (docs/bundle-build.md#3-the-live-iso-boots-from-the-cdrom-p3-p4-p5-before-the-reboot): the pristine ISO, downloaded and checked against P0's sha256 (cached on
 * the work volume), gets the live ignition embedded and lands as `disk.img` on the live-ISO PVC.
 */
export const runIso: StepRunner<'iso'> = async (context) => {
  const { config, signal } = context;
  const cache = workPath(config.paths.work, WORK_FILES.isoCache);
  await mkdir(cache, { recursive: true });
  const pristine = path.join(cache, `${config.isoSha256}.iso`);
  const cached = await sha256File(pristine, signal).catch(() => undefined);
  if (cached !== config.isoSha256) {
    const partial = `${pristine}.part`;
    const fetched = await download(config.isoUrl, partial, { signal }).catch((error: unknown) => {
      throw context.fail(
        'DownloadFailed',
        `downloading the live ISO from ${config.isoUrl} failed (${errorMessage(error)}); the cluster needs egress to it (or a mirror)`,
      );
    });
    if (fetched.sha256 !== config.isoSha256)
      throw context.fail(
        'ChecksumMismatch',
        `the live ISO has sha256 ${fetched.sha256}, not ${config.isoSha256} as the release's stream metadata says; the download is corrupt or the mirror serves another file`,
      );
    await rename(partial, pristine);
  }
  const out = path.join(config.paths.liveIso, BUILD_DISK_FILE);
  const ignition = workPath(config.paths.work, WORK_FILES.liveIgnition);
  await tool(
    'coreos-installer',
    ['iso', 'ignition', 'embed', '-f', '-i', ignition, '-o', out, pristine],
    signal,
  ).catch((error: unknown) => {
    throw context.fail(
      'EmbedFailed',
      `${errorMessage(error)}; a large ignition can overflow the ISO's embed area`,
      error,
    );
  });
  return { liveIsoSha256: await sha256File(out, signal) };
};
