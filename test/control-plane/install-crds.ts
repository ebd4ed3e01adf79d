import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import {
  ApiException,
  KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
} from '@kubernetes/client-node';
import { ControlPlaneError } from './errors.js';
import { projectRoot } from './project-root.js';
import { THIRD_PARTY_KINDS, thirdPartyCrd } from '../platform/third-party-crds.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../support/resource-type.js';
import { waitFor } from '../support/wait-for.js';

const FIELD_MANAGER = 'guestcluster-local';

/**
 * Reads every CustomResourceDefinition from the YAML files of a folder (none if it is absent).
 * client-node's loader turns them into its typed models: its serializer writes only the fields it
 * knows under their model names (`x_kubernetes_validations`), so raw YAML objects sent through it
 * would silently lose every `x-kubernetes-*` key.
 */
export async function readCrdFolder(folder: string): Promise<V1CustomResourceDefinition[]> {
  let files: string[];
  try {
    files = (await readdir(folder)).filter((file) => /\.ya?ml$/.test(file)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of files) {
    const documents = loadAllYaml(
      await readFile(path.join(folder, file), 'utf8'),
    ) as (V1CustomResourceDefinition | null)[];
    for (const object of documents) {
      if (object?.kind === 'CustomResourceDefinition') crds.push(object);
    }
  }
  return crds;
}

function isEstablished(crd: V1CustomResourceDefinition | undefined): boolean {
  return (
    crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false
  );
}

/**
 * Applies our CRDs (from `crdFolder`) and the stand-ins for the third-party kinds, then waits until
 * every one is Established. Server-side apply makes this safe to repeat.
 */
export async function installCrds(kubeConfig: KubeConfig, crdFolder: string): Promise<string[]> {
  const crds = [...(await readCrdFolder(crdFolder)), ...THIRD_PARTY_KINDS.map(thirdPartyCrd)];
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of crds) {
    try {
      await objects.patch(
        crd,
        undefined,
        undefined,
        FIELD_MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    } catch (error) {
      throw new ControlPlaneError(
        `The apiserver refused CustomResourceDefinition ${crd.metadata?.name}: ${apiErrorMessage(error)}`,
      );
    }
  }
  await Promise.all(
    crds.map((crd) =>
      waitFor<V1CustomResourceDefinition>(kubeConfig, {
        type: CUSTOM_RESOURCE_DEFINITIONS,
        name: crd.metadata!.name!,
        until: isEstablished,
        description: `CustomResourceDefinition ${crd.metadata!.name!} to be Established`,
      }),
    ),
  );
  return crds.map((crd) => crd.metadata!.name!);
}

/** The apiserver's own message from a failed request, without client-node's dump of headers. */
function apiErrorMessage(error: unknown): string {
  if (error instanceof ApiException) {
    try {
      return (JSON.parse(String(error.body)) as { message?: string }).message ?? String(error.body);
    } catch {
      return String(error.body);
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** Installs the project's CRDs (crds/) and the third-party stand-ins, as the given kubeconfig's user. */
export async function installProjectCrds(kubeconfigPath: string): Promise<string[]> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  return installCrds(kubeConfig, path.join(projectRoot(), 'crds'));
}
