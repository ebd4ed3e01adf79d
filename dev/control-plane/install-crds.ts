import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { ApiError } from '../../client/kube/api-error.js';
import { ControlPlaneError } from './errors.js';
import type { CrdManifest } from './platform-crds/crd-manifest.js';
import { parseCrds } from './platform-crds/crd-manifest.js';
import { managementPlatformCrds } from './platform-crds/platform-crds.js';
import { projectRoot } from './project-root.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../operator/api/platform-resources.js';
import { waitFor } from '../support/wait-for.js';
import { adminAccessFromFile } from '../support/admin-access.js';

const FIELD_MANAGER = 'guestcluster-local';

/** Every CustomResourceDefinition in the YAML files of a folder (none if it is absent). */
export async function readCrdFolder(folder: string): Promise<CrdManifest[]> {
  let files: string[];
  try {
    files = (await readdir(folder)).filter((file) => /\.ya?ml$/.test(file)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const crds: CrdManifest[] = [];
  for (const file of files)
    crds.push(...parseCrds(await readFile(path.join(folder, file), 'utf8')));
  return crds;
}

function isEstablished(crd: CrdManifest | undefined): boolean {
  const conditions = (crd as { status?: { conditions?: { type: string; status: string }[] } })
    ?.status?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/**
 * Applies CRDs as plain JSON (server-side apply, so safe to repeat) and waits until every one is
 * Established.
 */
export async function installCrds(
  kubeConfig: ClusterAccess,
  crds: CrdManifest[],
): Promise<string[]> {
  const client = new ApiClient(kubeConfig);
  try {
    for (const crd of crds) {
      try {
        await client.patch(CUSTOM_RESOURCE_DEFINITIONS, { name: crd.metadata.name }, crd, {
          patchType: 'apply',
          fieldManager: FIELD_MANAGER,
          force: true,
        });
      } catch (error) {
        const message = error instanceof ApiError ? error.message : String(error);
        throw new ControlPlaneError(
          `The apiserver refused CustomResourceDefinition ${crd.metadata.name}: ${message}`,
        );
      }
    }
  } finally {
    await client.close();
  }
  await Promise.all(
    crds.map((crd) =>
      waitFor<CrdManifest>(kubeConfig, {
        type: CUSTOM_RESOURCE_DEFINITIONS,
        name: crd.metadata.name,
        until: isEstablished,
        description: `CustomResourceDefinition ${crd.metadata.name} to be Established`,
      }),
    ),
  );
  return crds.map((crd) => crd.metadata.name);
}

/**
 * Installs the project's CRDs (crds/, or `folder` of the repository: a release's, under
 * crds/released/) and the platform's (real ones where they can be had, see
 * managementPlatformCrds), as the given kubeconfig's user; `log` says where the platform's came
 * from.
 */
export async function installProjectCrds(
  kubeconfigPath: string,
  log: (message: string) => void = () => undefined,
  folder = 'crds',
): Promise<string[]> {
  const kubeConfig = adminAccessFromFile(kubeconfigPath);
  const platform = await managementPlatformCrds({ log });
  for (const source of platform.sources) log(`Platform CRDs: ${source}`);
  const ours = await readCrdFolder(path.join(projectRoot(), folder));
  return installCrds(kubeConfig, [...ours, ...platform.crds]);
}
