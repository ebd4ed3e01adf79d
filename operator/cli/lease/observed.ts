import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { watchObject } from '../../../client/kube/watch-object.js';

/** How long to wait for the operator to write a status for a change of the spec. */
const OBSERVED_WAIT_MS = 10_000;

/**
 * The lease once the operator has written a status for this generation (its new expiresAt, and
 * whether it took the TTL), or as it is then.
 */
export async function observed(api: ApiClient, lease: ClusterLease): Promise<ClusterLease> {
  const generation = lease.metadata?.generation ?? 0;
  const seen = (l: ClusterLease | undefined): boolean =>
    !l || (l.status?.observedGeneration ?? 0) >= generation;
  if (seen(lease)) return lease;
  const { object } = await watchObject<ClusterLease>(
    api,
    {
      type: LEASES,
      name: lease.metadata!.name!,
      namespace: lease.metadata!.namespace,
      resourceVersion: lease.metadata!.resourceVersion!,
    },
    { last: lease, until: seen, signal: AbortSignal.timeout(OBSERVED_WAIT_MS) },
  ).catch(() => ({ object: lease }));
  return object ?? lease;
}
