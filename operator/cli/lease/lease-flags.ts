import { MAX_LEASE_TTL_MS, parseGoDuration } from '../../../client/api/duration.js';
import { MAX_KUBECONFIG_OWNER_NAME } from '../../../contracts/names.js';
import { badInput } from './exit-codes.js';

export type OutputFormat = 'text' | 'json';

export function outputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text';
  throw badInput(`--output is "${value}"; expected text or json`);
}

/** A Go duration in milliseconds, or a message naming the flag. */
export function durationFlag(flag: string, value: string): number {
  const ms = parseGoDuration(value);
  if (ms === undefined)
    throw badInput(`${flag} is "${value}"; expected a duration such as 30m, 2h or 1h30m`);
  return ms;
}

/** A lease lifetime: at most 8760h, as the CRD allows; "0" means none. */
export function ttlFlag(value: string): string {
  const ms = durationFlag('--ttl', value);
  if (ms > MAX_LEASE_TTL_MS) throw badInput(`--ttl is "${value}"; expected at most 8760h`);
  return value;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A lease name: a DNS subdomain short enough for its "<name>-kubeconfig" Secret. */
export function leaseNameFlag(flag: string, value: string): string {
  if (!DNS_SUBDOMAIN.test(value) || value.length > MAX_KUBECONFIG_OWNER_NAME)
    throw badInput(
      `${flag} is "${value}"; expected lower-case letters, digits, "-" and "." (at most ${MAX_KUBECONFIG_OWNER_NAME} characters)`,
    );
  return value;
}
