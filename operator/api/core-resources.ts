import { resourceType } from '../kube/resource-type.js';

/** Built-in kinds the controllers create or read besides Secrets and Namespaces. */
export const PVCS = resourceType('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
export const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');
export const PODS = resourceType('v1', 'Pod', 'pods');
export const JOBS = resourceType('batch/v1', 'Job', 'jobs');
