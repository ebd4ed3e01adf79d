import { parseAllDocuments } from 'yaml';
import type { KubeObject, ObjectMeta } from '../../../operator/kube/objects.js';

/** An OpenAPI v3 schema as the apiserver takes it (`x-kubernetes-*` keys spelled as on the wire). */
export type JsonSchema = Record<string, unknown>;

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JsonSchema };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    priority?: number;
  }[];
}

/**
 * A CustomResourceDefinition as plain JSON, the way it is sent: client-node's models would drop
 * every `x-kubernetes-*` key they do not know under their own field names.
 */
export interface CrdManifest extends KubeObject {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: ObjectMeta & { name: string };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: {
      kind: string;
      listKind?: string;
      plural: string;
      singular?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CrdVersion[];
  };
}

/** The CustomResourceDefinitions among the YAML documents of a file. */
export function parseCrds(text: string): CrdManifest[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as CrdManifest | null)
    .filter((object): object is CrdManifest => object?.kind === 'CustomResourceDefinition');
}

/** The CRD of `name` among `crds`; a missing one is a broken source, named in the error. */
export function pick(crds: readonly CrdManifest[], name: string, source: string): CrdManifest {
  const crd = crds.find((c) => c.metadata.name === name);
  if (!crd) throw new Error(`${source} has no CustomResourceDefinition ${name}`);
  return crd;
}
