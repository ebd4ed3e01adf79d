import os from 'node:os';
import path from 'node:path';
import { ensureBinaries, isExecutable } from './go-build.js';
import type { ControlPlaneBinary } from './versions.js';
import { CONTROL_PLANE_BINARIES, ETCD_VERSION, KUBERNETES_VERSION } from './versions.js';

export type BinaryPaths = Record<ControlPlaneBinary, string>;

/** Where the project caches what it builds or extracts between runs: outside the repository. */
export function guestclusterCacheDir(): string {
  return (
    process.env.GUESTCLUSTER_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'guestcluster')
  );
}

/** Where built binaries are kept between runs, keyed by version. */
export function controlPlaneCacheDir(): string {
  return path.join(guestclusterCacheDir(), 'control-plane');
}

function versionedBinDir(): string {
  return path.join(
    controlPlaneCacheDir(),
    `kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}-${process.platform}-${process.arch}`,
    'bin',
  );
}

/**
 * Finds the control-plane binaries: a KUBEBUILDER_ASSETS folder when set (envtest's layout), else
 * the versioned cache, building whatever is missing from Go modules. envtest assets have no
 * kube-controller-manager, so that one may still be built.
 */
export async function resolveBinaries(log: (message: string) => void): Promise<BinaryPaths> {
  const cacheBin = versionedBinDir();
  const assets = process.env.KUBEBUILDER_ASSETS;
  const found: Partial<BinaryPaths> = {};
  const missing: ControlPlaneBinary[] = [];
  for (const binary of CONTROL_PLANE_BINARIES) {
    const candidates = [
      ...(assets ? [path.join(assets, binary)] : []),
      path.join(cacheBin, binary),
    ];
    let located: string | undefined;
    for (const candidate of candidates) {
      if (await isExecutable(candidate)) {
        located = candidate;
        break;
      }
    }
    if (located) found[binary] = located;
    else missing.push(binary);
  }
  if (missing.length > 0) {
    if (assets) log(`KUBEBUILDER_ASSETS (${assets}) has no ${missing.join(', ')}; building them`);
    await ensureBinaries(missing, cacheBin, path.join(controlPlaneCacheDir(), 'build'), log);
    for (const binary of missing) found[binary] = path.join(cacheBin, binary);
  }
  return found as BinaryPaths;
}
