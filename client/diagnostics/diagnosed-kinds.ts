import { resourceType } from '../kube/resource-type.js';

/*
 * The platform kinds an instance's diagnostics follow (docs/diagnostics.md#what-is-collected),
 * addressed without discovery; the operator's own list is in operator/api/platform-resources.ts.
 */
export const DIAGNOSED_KINDS = {
  virtualMachine: resourceType('kubevirt.io/v1', 'VirtualMachine', 'virtualmachines'),
  virtualMachineInstance: resourceType(
    'kubevirt.io/v1',
    'VirtualMachineInstance',
    'virtualmachineinstances',
  ),
  dataVolume: resourceType('cdi.kubevirt.io/v1beta1', 'DataVolume', 'datavolumes'),
  hostedCluster: resourceType('hypershift.openshift.io/v1beta1', 'HostedCluster', 'hostedclusters'),
  nodePool: resourceType('hypershift.openshift.io/v1beta1', 'NodePool', 'nodepools'),
} as const;

/** On every stored diagnostics ConfigMap, value "true" (docs/diagnostics.md#stored-bundles). */
export const LABEL_DIAGNOSTICS = 'guestcluster.opdev.io/diagnostics';
