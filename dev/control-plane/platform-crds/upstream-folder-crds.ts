import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../project-root.js';
import type { CrdManifest } from './crd-manifest.js';
import { parseCrds, pick } from './crd-manifest.js';

/** The kinds whose real CRDs the module proxy does not serve (HyperShift, HCO, MCE). */
export const FOLDER_KINDS = [
  'hostedclusters.hypershift.openshift.io',
  'nodepools.hypershift.openshift.io',
  'hyperconvergeds.hco.kubevirt.io',
  'multiclusterengines.multicluster.openshift.io',
];

/**
 * Where unchanged upstream CRD files of those projects may sit next to the checkout: the folder
 * `../shared/upstream-crds` of the project root (one sub-folder per project and version).
 */
export function upstreamCrdFolder(): string {
  return path.resolve(projectRoot(), '..', 'shared', 'upstream-crds');
}

/** The folder kinds' CRDs from the folder, or undefined when the folder is not there. */
export async function upstreamFolderCrds(
  folder = upstreamCrdFolder(),
): Promise<CrdManifest[] | undefined> {
  let projects: string[];
  try {
    projects = (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const crds: CrdManifest[] = [];
  for (const project of projects.sort()) {
    const dir = path.join(folder, project);
    for (const file of (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort())
      crds.push(...parseCrds(await readFile(path.join(dir, file), 'utf8')));
  }
  return FOLDER_KINDS.map((name) => pick(crds, name, folder));
}
