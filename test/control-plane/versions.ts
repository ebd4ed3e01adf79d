/**
 * Pinned versions of the local control plane. Changing one changes the cache key, so the next run
 * builds the new binaries once and reuses them afterwards.
 */
export const KUBERNETES_VERSION = 'v1.36.3';
/** The staging modules (k8s.io/api, k8s.io/client-go, ...) are tagged v0.<minor>.<patch>. */
export const KUBERNETES_STAGING_VERSION = 'v0.36.3';
export const ETCD_VERSION = 'v3.6.16';

/** The binaries the control plane needs, by file name. */
export const CONTROL_PLANE_BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kubectl',
] as const;
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];
