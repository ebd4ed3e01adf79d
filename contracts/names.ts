/**
 * Object names other parts rely on. Every ClusterInstance and every ClusterLease publishes its
 * guest kubeconfig in the Secret `<name>-kubeconfig` of its namespace, so instances and leases
 * of one namespace share one name space for those Secrets: the collision rule is that an
 * instance may not take the name of a lease (a pool's naming skips both), and a name stays short
 * enough for its Secret's name to be valid.
 */

export const KUBECONFIG_SECRET_SUFFIX = '-kubeconfig';

/** The data key of the kubeconfig in an instance's or lease's Secret. */
export const KUBECONFIG_KEY = 'kubeconfig';

/** The guest kubeconfig Secret of an instance or a lease: `<name>-kubeconfig`. */
export function kubeconfigSecretName(owner: string): string {
  return `${owner}${KUBECONFIG_SECRET_SUFFIX}`;
}

/** The longest instance or lease name whose kubeconfig Secret name is still valid (253). */
export const MAX_KUBECONFIG_OWNER_NAME = 253 - KUBECONFIG_SECRET_SUFFIX.length;

/** Whether two objects of one namespace would publish their kubeconfig in the same Secret. */
export function kubeconfigSecretsCollide(a: string, b: string): boolean {
  return kubeconfigSecretName(a) === kubeconfigSecretName(b);
}

/** The CPU architecture of a CRC bundle when a pool names none. */
export const DEFAULT_CRC_ARCH = 'amd64';

/** The CRCBundle of a CRC version: `crc-<version>-<arch>`, shared by every pool on that version. */
export function crcBundleName(version: string, arch?: string): string {
  return `crc-${version}-${arch || DEFAULT_CRC_ARCH}`;
}
