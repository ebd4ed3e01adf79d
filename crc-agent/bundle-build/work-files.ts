import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The work PVC's layout, shared by the steps of one build: what P0 resolved, the binaries, and
 * the installer's dir brought back from the installer VM (credentials: files 0600).
 */
export const WORK_FILES = {
  /** The facts of P0 the later steps need (image pullspecs), JSON. */
  resolved: 'resolved.json',
  openshiftInstall: 'bin/openshift-install',
  /** The install dir as the installer VM left it (auth/, the live ignition, metadata.json). */
  installDir: 'install',
  liveIgnition: 'install/bootstrap-in-place-for-live-iso.ign',
  adminKubeconfig: 'install/auth/kubeconfig',
  kubeadminPassword: 'install/auth/kubeadmin-password',
  isoCache: 'iso-cache',
} as const;

/** Where the guests keep the build's files: the installer VM, and the target until P10. */
export const GUEST_WORK_DIR = {
  installer: '/var/tmp/guestcluster-build',
  target: '/var/lib/guestcluster-build',
} as const;

/** What the resolve step leaves for the others. */
export interface ResolvedRelease {
  ocpVersion: string;
  releaseDigest: string;
  isoUrl: string;
  isoSha256: string;
  /** `oc adm release info --image-for=cli`: the cred-manager's image (docs/bundle-build.md#6-certificate-rotation-in-the-present-p6-p7). */
  cliImage: string;
  /** `--image-for=baremetal-runtimecfg`: pinned through the prune (P9, the image-pin step). */
  baremetalRuntimecfgImage: string;
  /** The routes-controller image with the tag that exists (the version's, else latest). */
  routesControllerImage: string;
}

export function workPath(workDir: string, file: string): string {
  return path.join(workDir, file);
}

export async function readResolved(workDir: string): Promise<ResolvedRelease> {
  const file = workPath(workDir, WORK_FILES.resolved);
  let parsed: Partial<ResolvedRelease>;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<ResolvedRelease>;
  } catch (error) {
    throw new Error(`the resolve step's ${file} is missing or unreadable (${String(error)})`, {
      cause: error,
    });
  }
  for (const key of ['cliImage', 'baremetalRuntimecfgImage', 'routesControllerImage'] as const)
    if (!parsed[key]) throw new Error(`${file} has no ${key}`);
  return parsed as ResolvedRelease;
}

export async function writeResolved(workDir: string, resolved: ResolvedRelease): Promise<void> {
  await writeFile(workPath(workDir, WORK_FILES.resolved), JSON.stringify(resolved, null, 2));
}
