import { resourceType } from '../kube/resource-type.js';

/** Built-in kinds the controllers create or read besides Secrets and Namespaces. */
export const PVCS = resourceType('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
export const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');
export const PODS = resourceType('v1', 'Pod', 'pods');
export const JOBS = resourceType('batch/v1', 'Job', 'jobs');
export const SERVICES = resourceType('v1', 'Service', 'services');
export const SERVICE_ACCOUNTS = resourceType('v1', 'ServiceAccount', 'serviceaccounts');
export const EVENTS = resourceType('v1', 'Event', 'events');
export const ROLES = resourceType('rbac.authorization.k8s.io/v1', 'Role', 'roles');
export const ROLE_BINDINGS = resourceType(
  'rbac.authorization.k8s.io/v1',
  'RoleBinding',
  'rolebindings',
);
export const NETWORK_POLICIES = resourceType(
  'networking.k8s.io/v1',
  'NetworkPolicy',
  'networkpolicies',
);
export const CLUSTER_ROLES = resourceType(
  'rbac.authorization.k8s.io/v1',
  'ClusterRole',
  'clusterroles',
  false,
);

/** The Job controller's label on a Job's pods. */
export const LABEL_JOB_NAME = 'batch.kubernetes.io/job-name';
