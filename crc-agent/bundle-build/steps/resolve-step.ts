import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../errors.js';
import type { StepRunner } from '../step-context.js';
import type { StepContext } from '../step-context.js';
import { WORK_FILES, workPath, writeResolved } from '../work-files.js';
import { tool } from './local-steps.js';

const ROUTES_CONTROLLER = 'quay.io/crcont/routes-controller';

interface ReleaseInfo {
  digest?: string;
  metadata?: { version?: string };
  references?: { spec?: { tags?: { name?: string; from?: { name?: string } }[] } };
}

interface StreamJson {
  architectures?: Record<
    string,
    {
      artifacts?: {
        metal?: { formats?: { iso?: { disk?: { location?: string; sha256?: string } } } };
      };
    }
  >;
}

/** A release component's pullspec, as `oc adm release info --image-for` gives it. */
export function imageFor(info: ReleaseInfo, name: string): string | undefined {
  return info.references?.spec?.tags?.find((tag) => tag.name === name)?.from?.name;
}

/** The live ISO of an architecture in `openshift-install coreos print-stream-json`. */
export function liveIso(
  stream: StreamJson,
  arch: string,
): { url: string; sha256: string } | undefined {
  const disk = stream.architectures?.[arch]?.artifacts?.metal?.formats?.iso?.disk;
  return disk?.location && disk.sha256 ? { url: disk.location, sha256: disk.sha256 } : undefined;
}

async function routesControllerImage(context: StepContext, version: string): Promise<string> {
  // As snc's createdisk.sh picks it: the tag of this version when it exists, else latest.
  const tagged = `${ROUTES_CONTROLLER}:${version}`;
  const exists = await tool(
    'oc',
    ['image', 'info', '--filter-by-os=linux/amd64', tagged],
    context.signal,
  ).then(
    () => true,
    () => false,
  );
  return exists ? tagged : `${ROUTES_CONTROLLER}:latest`;
}

/**
 * P0 (docs/bundle-build.md#1-preflight-p0-p1), what snc.sh finds out at its start and
 * createdisk.sh's routes-controller tag
 * (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): the release's version, digest and
 * component images, the openshift-install binary extracted onto the work volume, and the live ISO
 * of the release's stream metadata. Everything the later steps need is written to the work volume
 * too.
 */
export const runResolve: StepRunner<'resolve'> = async (context) => {
  const { config, signal } = context;
  const auth = ['-a', config.paths.pullSecret];
  let info: ReleaseInfo;
  try {
    info = JSON.parse(
      await tool(
        'oc',
        ['adm', 'release', 'info', ...auth, config.releaseImage, '-o', 'json'],
        signal,
      ),
    ) as ReleaseInfo;
  } catch (error) {
    throw context.fail(
      'ReleaseUnreadable',
      `reading release ${config.releaseImage} failed (${errorMessage(error)}); check spec.build.releaseImage and that the pull secret may pull it`,
      error,
    );
  }
  const version = info.metadata?.version;
  const cliImage = imageFor(info, 'cli');
  const baremetalRuntimecfgImage = imageFor(info, 'baremetal-runtimecfg');
  if (!version || !info.digest || !cliImage || !baremetalRuntimecfgImage)
    throw context.fail(
      'ReleaseUnreadable',
      `release ${config.releaseImage} lacks a version, a digest, or the cli or baremetal-runtimecfg image; it must be an OpenShift release payload`,
    );
  const bin = path.dirname(workPath(config.paths.work, WORK_FILES.openshiftInstall));
  await mkdir(bin, { recursive: true });
  await tool(
    'oc',
    [
      'adm',
      'release',
      'extract',
      ...auth,
      '--command=openshift-install',
      `--to=${bin}`,
      config.releaseImage,
    ],
    signal,
  ).catch((error: unknown) => {
    throw context.fail(
      'InstallerExtractFailed',
      `${errorMessage(error)}; the work volume needs about 1 GiB free`,
      error,
    );
  });
  const stream = JSON.parse(
    await tool(
      workPath(config.paths.work, WORK_FILES.openshiftInstall),
      ['coreos', 'print-stream-json'],
      signal,
    ),
  ) as StreamJson;
  const iso = liveIso(stream, 'x86_64');
  if (!iso)
    throw context.fail(
      'ReleaseUnreadable',
      'the release stream metadata names no x86_64 metal live ISO',
    );
  const resolved = {
    ocpVersion: version,
    releaseDigest: info.digest,
    isoUrl: iso.url,
    isoSha256: iso.sha256,
    cliImage,
    baremetalRuntimecfgImage,
    routesControllerImage: await routesControllerImage(context, version),
  };
  await writeResolved(config.paths.work, resolved);
  return {
    ocpVersion: version,
    releaseDigest: info.digest,
    isoUrl: iso.url,
    isoSha256: iso.sha256,
  };
};
