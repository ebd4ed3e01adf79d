import type { ClusterLease } from '../operator/api/resources.js';
import { LEASES } from '../operator/api/resources.js';
import type { ApiClient } from '../operator/kube/api-client.js';

/**
 * Sets a lease's spec.ttl (a Go duration, counted from when it was bound): the operator moves
 * status.expiresAt to boundTime + ttl. Raising it past what the pool allows is refused by the
 * API, with a message naming the cap.
 */
export async function extendLease(
  api: ApiClient,
  namespace: string,
  name: string,
  ttl: string,
): Promise<ClusterLease> {
  return api.patch<ClusterLease>(LEASES, { name, namespace }, { spec: { ttl } });
}
