/** Label keys, values and finalizers of the compatibility contract (written once in contracts/). */
export {
  FINALIZER_INSTANCE_CLEANUP,
  FINALIZER_LEASE_RELEASE,
  FINALIZER_POOL_PROTECTION,
  LABEL_CLUSTER_INSTANCE,
  LABEL_CLUSTER_INSTANCE_NAMESPACE,
  LABEL_MANAGED_BY,
  LABEL_NAMESPACE_ENABLED,
  LABEL_POOL,
  MANAGED_BY_OPERATOR,
} from '../../contracts/labels.js';
