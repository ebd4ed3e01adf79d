/** Enough about a kind to list, watch and address its objects without discovery. */
export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export function resourceType(
  apiVersion: string,
  kind: string,
  plural: string,
  namespaced = true,
): ResourceType {
  return { apiVersion, kind, plural, namespaced };
}

/** The collection URL path, e.g. /apis/apps/v1/namespaces/ns/deployments. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const root = type.apiVersion.includes('/')
    ? `/apis/${type.apiVersion}`
    : `/api/${type.apiVersion}`;
  return type.namespaced && namespace
    ? `${root}/namespaces/${namespace}/${type.plural}`
    : `${root}/${type.plural}`;
}

export const NAMESPACES = resourceType('v1', 'Namespace', 'namespaces', false);
export const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');
export const SECRETS = resourceType('v1', 'Secret', 'secrets');
export const CUSTOM_RESOURCE_DEFINITIONS = resourceType(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
