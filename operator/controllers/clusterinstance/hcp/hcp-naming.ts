import {
  cut,
  HASH_CHARS,
  instanceHash,
  MAX_LABEL,
  NamingError,
  readablePrefix,
} from '../core/naming.js';

/**
 * Names of an instance's HyperShift objects (docs/reference/naming.md#name-rules,
 * docs/reference/naming.md#api-host-name, with the change in README "hcp pools"). The HostedCluster
 * is not named after the instance: HyperShift puts its control plane in the namespace `<hc
 * namespace>-<hc name>`, where `tenant/a-b` and `tenant-a/b` would meet and long names would not
 * fit. `gc-<prefix>-<hash>` hashes namespace and name, and is cut to fit.
 */

const HC_PREFIX = 'gc-';
/** Short enough for `<hc>-workers`, HyperShift's own derived names and people's screens. */
export const MAX_HOSTED_CLUSTER_NAME = 40;
/** `gc-` and the hash, without a readable part. */
const MIN_HOSTED_CLUSTER_NAME = HC_PREFIX.length + HASH_CHARS;
/** The longest instance namespace that leaves room for `-gc-<hash>` in a 63-character namespace. */
export const MAX_INSTANCE_NAMESPACE = MAX_LABEL - 1 - MIN_HOSTED_CLUSTER_NAME;

/** The HostedCluster of an instance: `gc-<prefix>-<hash>`, or `gc-<hash>` when no prefix fits. */
export function hostedClusterName(namespace: string, name: string): string {
  if (namespace.length > MAX_INSTANCE_NAMESPACE) {
    throw new NamingError(
      `namespace "${namespace}" has ${namespace.length} characters; hcp instances need a namespace of at most ${MAX_INSTANCE_NAMESPACE}, so that the hosted control plane namespace "<namespace>-gc-<hash>" fits in ${MAX_LABEL}`,
    );
  }
  const limit = Math.min(MAX_HOSTED_CLUSTER_NAME, MAX_LABEL - 1 - namespace.length);
  const hash = instanceHash(namespace, name);
  const prefix = cut(readablePrefix(name), limit - MIN_HOSTED_CLUSTER_NAME - 1);
  return prefix ? `${HC_PREFIX}${prefix}-${hash}` : `${HC_PREFIX}${hash}`;
}

export function nodePoolName(hostedCluster: string): string {
  return `${hostedCluster}-workers`;
}

/** HyperShift's hosted control plane namespace: `<hc namespace>-<hc name, dots as hyphens>`. */
export function controlPlaneNamespace(hcNamespace: string, hcName: string): string {
  return `${hcNamespace}-${hcName.replaceAll('.', '-')}`;
}

export const kasServingCertName = (instance: string): string => `${instance}-kas-serving-cert`;
export const apiRouteName = (instance: string): string => `${instance}-api`;
