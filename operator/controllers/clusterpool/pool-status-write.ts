import type { ClusterPool } from '../../../client/api/resources.js';
import { POOLS } from '../../../client/api/resources.js';
import { isConflict, orUndefined } from '../../../client/kube/api-error.js';
import { sameContent } from '../../kube/objects.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Pool } from './pool-conditions.js';

/**
 * The one writer of ClusterPool.status (docs/reference/kinds.md#who-writes-what): through the
 * subresource, only when it changed. A conflict writes nothing: the cache is behind the pool, and
 * the newer version's watch event brings the pass that computes the status from it (retrying
 * with backoff would only add load). The written pool, or undefined when nothing was written.
 */
export async function writePoolStatus(
  ports: ControllerPorts,
  pool: Pool,
  status: NonNullable<ClusterPool['status']>,
): Promise<Pool | undefined> {
  if (sameContent(pool.status ?? {}, status)) return undefined;
  return orUndefined(ports.client.updateStatus(POOLS, { ...pool, status }), isConflict);
}
