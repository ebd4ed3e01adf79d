/** The API group of every guestcluster kind (the CRDs in crds/). */
export const GUESTCLUSTER_GROUP = 'guestcluster.opdev.io';
/** The API group and version of every guestcluster kind. */
export const GUESTCLUSTER_API_VERSION = `${GUESTCLUSTER_GROUP}/v1alpha1`;

/** The kinds of the guestcluster API, as owner references and events name them. */
export const KINDS = {
  pool: 'ClusterPool',
  lease: 'ClusterLease',
  instance: 'ClusterInstance',
  bundle: 'CRCBundle',
} as const;
