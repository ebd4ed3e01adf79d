import { resourceType } from '../../client/kube/resource-type.js';

/** Kinds of the management platform (HyperShift, KubeVirt, OpenShift routing and config) and core kinds the operator uses. */
export const HOSTED_CLUSTERS = resourceType(
  'hypershift.openshift.io/v1beta1',
  'HostedCluster',
  'hostedclusters',
);
export const NODE_POOLS = resourceType('hypershift.openshift.io/v1beta1', 'NodePool', 'nodepools');
export const ROUTES = resourceType('route.openshift.io/v1', 'Route', 'routes');
export const INGRESS_CONFIGS = resourceType(
  'config.openshift.io/v1',
  'Ingress',
  'ingresses',
  false,
);
/** The management cluster's routers (operator.openshift.io). */
export const INGRESS_CONTROLLERS = resourceType(
  'operator.openshift.io/v1',
  'IngressController',
  'ingresscontrollers',
);
export const VIRTUAL_MACHINE_INSTANCES = resourceType(
  'kubevirt.io/v1',
  'VirtualMachineInstance',
  'virtualmachineinstances',
);
export const NODES = resourceType('v1', 'Node', 'nodes', false);
/** The same registry entries as core-resources.ts, under the names platform code uses. */
export { PODS, PVCS as PERSISTENT_VOLUME_CLAIMS } from '../../client/api/core-resources.js';

/** HyperShift's label on the worker VMIs and launcher pods of a node pool. */
export const LABEL_NODE_POOL_NAME = 'hypershift.openshift.io/nodepool-name';

export const HYPERCONVERGEDS = resourceType(
  'hco.kubevirt.io/v1beta1',
  'HyperConverged',
  'hyperconvergeds',
);
export const MULTICLUSTERENGINES = resourceType(
  'multicluster.openshift.io/v1',
  'MultiClusterEngine',
  'multiclusterengines',
  false,
);
export const CUSTOM_RESOURCE_DEFINITIONS = resourceType(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
export const DEPLOYMENTS = resourceType('apps/v1', 'Deployment', 'deployments');

/** The crc topology's VM and root disk (KubeVirt, CDI). */
export const VIRTUAL_MACHINES = resourceType('kubevirt.io/v1', 'VirtualMachine', 'virtualmachines');
export const DATA_VOLUMES = resourceType('cdi.kubevirt.io/v1beta1', 'DataVolume', 'datavolumes');
/**
 * CDI's per-DataVolume opt-out of its garbage collection, which deletes a Succeeded DataVolume
 * (keeping its PVC) when an admin sets CDIConfig's dataVolumeTTLSeconds (off by default since
 * CDI 1.57).
 */
export const ANNOTATION_CDI_DELETE_AFTER_COMPLETION =
  'cdi.kubevirt.io/storage.deleteAfterCompletion';

/** KubeVirt's label on a VMI's virt-launcher pods (and the crc API Service's selector). */
export const LABEL_VM_NAME = 'vm.kubevirt.io/name';
