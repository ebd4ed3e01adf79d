import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { resolveBinaries } from '../control-plane/binaries.js';
import { runCommand } from '../control-plane/run-command.js';

/** A Kubernetes object as kustomize renders it. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface RoleManifest extends Manifest {
  rules?: PolicyRule[];
  aggregationRule?: unknown;
}

export interface BindingManifest extends Manifest {
  roleRef: { apiGroup: string; kind: 'Role' | 'ClusterRole'; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/**
 * A kustomization as `kubectl kustomize` renders it (the control plane's kubectl, built and cached
 * on first use): what `kubectl apply -k` would create, images and all.
 */
export async function renderKustomization(
  dir: string,
  log: (message: string) => void = () => undefined,
): Promise<Manifest[]> {
  const { kubectl } = await resolveBinaries(log);
  const { stdout } = await runCommand(kubectl, ['kustomize', path.resolve(dir)]);
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** A namespaced object as a bundle carries it: OLM puts it in the namespace it installs into. */
export function withoutNamespace(manifest: Manifest): Manifest {
  const metadata = { ...manifest.metadata };
  delete metadata.namespace;
  return { ...manifest, metadata };
}
