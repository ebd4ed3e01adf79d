import { createHash } from 'node:crypto';
import type { Instance } from './instance-api.js';
import {
  LABEL_CLUSTER_INSTANCE,
  LABEL_CLUSTER_INSTANCE_NAMESPACE,
  LABEL_MANAGED_BY,
  MANAGED_BY_OPERATOR,
} from '../../../api/labels.js';

/*
 * Names and labels every topology gives an instance's objects
 * (docs/reference/generated-objects.md#label-sets, docs/reference/naming.md#name-rules,
 * docs/reference/naming.md#api-host-name): the published kubeconfig Secret, the labels, and the API
 * host name of a new endpoint.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const MAX_LABEL = 63;
const MAX_SUBDOMAIN = 253;
export const HASH_CHARS = 16;

/**
 * The Secret the lease controller copies: `<instance>-kubeconfig`
 * (docs/reference/generated-objects.md#secrets).
 */
export { kubeconfigSecretName } from '../../../../contracts/names.js';

/** managed-by and instance labels (docs/reference/generated-objects.md#label-sets). */
export function commonLabels(instance: Instance): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR,
    [LABEL_CLUSTER_INSTANCE]: instance.metadata.name,
  };
}

/**
 * The API-endpoint label set (docs/reference/generated-objects.md#label-sets): the common labels
 * and the instance's namespace, for objects that name their instance from another namespace, or by
 * label only.
 */
export function endpointLabels(instance: Instance): Record<string, string> {
  return {
    ...commonLabels(instance),
    [LABEL_CLUSTER_INSTANCE_NAMESPACE]: instance.metadata.namespace,
  };
}

export class NamingError extends Error {
  override name = 'NamingError';
}

export function isDns1123Label(value: string): boolean {
  return value.length <= MAX_LABEL && DNS_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length > 0 && value.length <= MAX_SUBDOMAIN && value.split('.').every(isLabelPart);
}

const isLabelPart = (part: string): boolean => part.length > 0 && isDns1123Label(part);

/**
 * First 16 hex characters of SHA-256 over namespace, a NUL byte and name
 * (docs/reference/naming.md#api-host-name).
 */
export function instanceHash(namespace: string, name: string): string {
  return createHash('sha256')
    .update(`${namespace}\u0000${name}`)
    .digest('hex')
    .slice(0, HASH_CHARS);
}

/**
 * Lowercase letters and digits kept, any run of other characters one hyphen, no hyphen at the ends
 * (docs/reference/naming.md#api-host-name).
 */
export function readablePrefix(name: string): string {
  let out = '';
  for (const char of name.toLowerCase()) {
    if (/[a-z0-9]/.test(char)) out += char;
    else if (!out.endsWith('-')) out += '-';
  }
  return out.replace(/^-+|-+$/g, '');
}

/** The prefix cut to `room` characters, without a trailing hyphen. */
export function cut(prefix: string, room: number): string {
  return room <= 0 ? '' : prefix.slice(0, room).replace(/-+$/, '');
}

/**
 * The API host name of a new endpoint (docs/reference/naming.md#api-host-name):
 * `api-<prefix>-<hash>.<domain>`.
 */
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
