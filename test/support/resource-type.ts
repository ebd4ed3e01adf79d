import { resourceType } from '../../operator/kube/resource-type.js';

export type { ResourceType } from '../../operator/kube/resource-type.js';
export { collectionPath, resourceType } from '../../operator/kube/resource-type.js';

export const NAMESPACES = resourceType('v1', 'Namespace', 'namespaces', false);
export const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');
export const SECRETS = resourceType('v1', 'Secret', 'secrets');
export const CUSTOM_RESOURCE_DEFINITIONS = resourceType(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
