import { MAX_LEASE_TTL_MS, parseGoDuration } from '../api/duration.js';
import type { ClusterLease } from '../api/resources.js';
import { LEASES } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isNotFound } from '../kube/api-error.js';

/** A lease whose TTL was set, and its deadline as the operator computes it (boundTime + ttl). */
export interface ExtendedLease {
  lease: ClusterLease;
  /** RFC 3339; undefined while the lease is not bound yet, or has no TTL. */
  expiresAt?: string;
}

/** A TTL that cannot be set: malformed, refused by admission (the pool's cap), or no such lease. */
export class ExtendError extends Error {
  override name = 'ExtendError';
}

/**
 * Sets spec.ttl of a lease (counted from binding, as always): raising it extends the lease,
 * lowering it shortens it. Admission checks it against the pool's spec.maxLeaseDuration and
 * refuses more with a message naming the cap; nothing is clamped here either.
 */
export async function extendLease(
  api: ApiClient,
  namespace: string,
  name: string,
  ttl: string,
): Promise<ExtendedLease> {
  const ms = parseGoDuration(ttl);
  if (ms === undefined)
    throw new ExtendError(`TTL "${ttl}" is not a duration such as 2h, 90m or 1h30m`);
  if (ms > MAX_LEASE_TTL_MS) throw new ExtendError(`TTL "${ttl}" is above the maximum of 8760h`);
  let lease: ClusterLease;
  try {
    lease = await api.patch<ClusterLease>(LEASES, { name, namespace }, { spec: { ttl } });
  } catch (error) {
    if (isNotFound(error))
      throw new ExtendError(`ClusterLease ${namespace}/${name} not found`, { cause: error });
    if (error instanceof Error)
      throw new ExtendError(`ClusterLease ${namespace}/${name}: ${error.message}`, {
        cause: error,
      });
    throw error;
  }
  return { lease, expiresAt: deadlineText(lease.status?.boundTime, ms) };
}

/** boundTime + ttl, written as status.expiresAt is (whole seconds). */
export function deadlineText(boundTime: string | undefined, ttlMs: number): string | undefined {
  if (!boundTime || ttlMs <= 0) return undefined;
  return new Date(Date.parse(boundTime) + ttlMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
