import { createHash } from 'node:crypto';

/**
 * Names of an instance's HyperShift objects (spec §4.1, §4.2, with the change in README "hcp
 * pools"). The HostedCluster is not named after the instance: HyperShift puts its control plane
 * in the namespace `<hc namespace>-<hc name>`, where `tenant/a-b` and `tenant-a/b` would meet and
 * long names would not fit. `gc-<prefix>-<hash>` hashes namespace and name, and is cut to fit.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;
const MAX_SUBDOMAIN = 253;
const HASH_CHARS = 16;
const HC_PREFIX = 'gc-';
/** Short enough for `<hc>-workers`, HyperShift's own derived names and people's screens. */
export const MAX_HOSTED_CLUSTER_NAME = 40;
/** `gc-` and the hash, without a readable part. */
const MIN_HOSTED_CLUSTER_NAME = HC_PREFIX.length + HASH_CHARS;
/** The longest instance namespace that leaves room for `-gc-<hash>` in a 63-character namespace. */
export const MAX_INSTANCE_NAMESPACE = MAX_LABEL - 1 - MIN_HOSTED_CLUSTER_NAME;

export function isDns1123Label(value: string): boolean {
  return value.length <= MAX_LABEL && DNS_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length > 0 && value.length <= MAX_SUBDOMAIN && value.split('.').every(isLabelPart);
}

const isLabelPart = (part: string): boolean => part.length > 0 && isDns1123Label(part);

/** First 16 hex characters of SHA-256 over namespace, a NUL byte and name (spec §4.2 step 4). */
export function instanceHash(namespace: string, name: string): string {
  return createHash('sha256')
    .update(`${namespace}\u0000${name}`)
    .digest('hex')
    .slice(0, HASH_CHARS);
}

/** Lowercase letters and digits kept, any run of other characters one hyphen, no hyphen at the ends (§4.2 step 5). */
export function readablePrefix(name: string): string {
  let out = '';
  for (const char of name.toLowerCase()) {
    if (/[a-z0-9]/.test(char)) out += char;
    else if (!out.endsWith('-')) out += '-';
  }
  return out.replace(/^-+|-+$/g, '');
}

function cut(prefix: string, room: number): string {
  return room <= 0 ? '' : prefix.slice(0, room).replace(/-+$/, '');
}

export class NamingError extends Error {
  override name = 'NamingError';
}

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
export { kubeconfigSecretName } from '../../../../contracts/names.js';

/** The API host name of a new endpoint (spec §4.2): `api-<prefix>-<hash>.<domain>`. */
export function apiHostname(name: string, namespace: string, domain: string): string {
  if (!name || !isDns1123Subdomain(name))
    throw new NamingError(`instance name "${name}" is not a DNS-1123 subdomain`);
  if (!namespace || !isDns1123Label(namespace))
    throw new NamingError(`namespace "${namespace}" is not a DNS-1123 label`);
  if (!isDns1123Subdomain(domain))
    throw new NamingError(`management ingress domain "${domain}" is not a DNS-1123 subdomain`);
  const labelLimit = Math.min(MAX_LABEL, MAX_SUBDOMAIN - domain.length - 1);
  const fixed = 'api--'.length + HASH_CHARS;
  if (labelLimit < fixed)
    throw new NamingError(
      `management ingress domain "${domain}" leaves no room for a unique API hostname`,
    );
  const prefix = cut(readablePrefix(name), labelLimit - fixed);
  const hostname = `api-${prefix}-${instanceHash(namespace, name)}.${domain}`;
  if (!isDns1123Subdomain(hostname))
    throw new NamingError(`API hostname "${hostname}" is not a DNS-1123 subdomain`);
  return hostname;
}
