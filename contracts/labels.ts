/**
 * Label keys, values and finalizers of the compatibility contract: what other tools select on
 * and what the operator, crc-agent and bundle-prep put on the objects they create.
 */
export const LABEL_MANAGED_BY = 'opdev.io/managed-by';
export const MANAGED_BY_OPERATOR = 'guestcluster-operator';
export const LABEL_POOL = 'opdev.io/pool';
export const LABEL_NAMESPACE_ENABLED = 'guestcluster.opdev.io/enabled';
export const LABEL_CLUSTER_INSTANCE = 'opdev.io/cluster-instance';
export const LABEL_CLUSTER_INSTANCE_NAMESPACE = 'opdev.io/cluster-instance-namespace';
/** On a CRCBundle's PVCs, prep Job, pod, SSH key Secret and metadata ConfigMap. */
export const LABEL_CRC_BUNDLE = 'opdev.io/crc-bundle';
/** On a lease a failed CI job keeps for debugging (the Action's hold-on-failure), value "true". */
export const LABEL_LEASE_HELD = 'guestcluster.opdev.io/held';

export const FINALIZER_LEASE_RELEASE = 'guestcluster.opdev.io/release';
export const FINALIZER_INSTANCE_CLEANUP = 'guestcluster.opdev.io/cleanup';
/** On a pool while leases hold its instances: a deleted pool waits until they release them. */
export const FINALIZER_POOL_PROTECTION = 'guestcluster.opdev.io/pool-protection';
