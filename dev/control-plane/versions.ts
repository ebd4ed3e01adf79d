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

/**
 * The platform APIs the local control plane serves with their real CRDs (docs/adr/0014). Like the
 * binaries, each is obtained through the Go module proxy and cached by version.
 */
export const KUBEVIRT_VERSION = 'v1.6.0';
export const CDI_API_VERSION = 'v1.62.0';
/** CDI generates its CRDs with controller-gen; the version CDI v1.62 uses. */
export const CONTROLLER_TOOLS_VERSION = 'v0.17.3';
/**
 * github.com/openshift/api tags no OpenShift release: this pseudo-version is a commit of its
 * release-4.19 branch that the module proxy serves (OPENSHIFT_API_BRANCH names it for people).
 */
export const OPENSHIFT_API_VERSION = 'v0.0.0-20251217143335-482f1b56dcc4';
export const OPENSHIFT_API_BRANCH = 'release-4.19';
