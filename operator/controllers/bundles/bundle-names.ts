/**
 * The names of a bundle's objects in the operator namespace (docs/reference/naming.md#name-rules):
 * the bundle name plus a suffix.
 */
export interface BundleNames {
  golden: string;
  scratch: string;
  prepJob: string;
  sshKeySecret: string;
  metadataConfigMap: string;
  /** The prep Job's own ServiceAccount, and its Role and RoleBinding. */
  prepAccount: string;
}

export function bundleNames(bundleName: string): BundleNames {
  return {
    golden: `${bundleName}-golden`,
    scratch: `${bundleName}-scratch`,
    prepJob: `${bundleName}-prep`,
    sshKeySecret: `${bundleName}-ssh-key`,
    metadataConfigMap: `${bundleName}-metadata`,
    prepAccount: `${bundleName}-prep`,
  };
}
