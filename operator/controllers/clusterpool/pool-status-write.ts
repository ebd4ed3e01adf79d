import type { ClusterPool } from '../../../client/api/resources.js';
import { POOLS } from '../../../client/api/resources.js';
import { isConflict, orUndefined } from '../../../client/kube/api-error.js';
import { startedWait } from '../../api/waits.js';
import { sameContent } from '../../kube/objects.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Pool } from './pool-conditions.js';
import { PoolReason } from './pool-conditions.js';

/**
 * The pool's waits that only a person ends, by condition (docs/reference/kinds.md#waits-that-need-a-person).
 * CRCVersionNotAllowed, CRCBundleNotAllowed and the stream's reasons announce themselves where
 * they are decided (crc-version-gate.ts, pool-version.ts).
 */
const POOL_NEEDS_A_PERSON: Record<string, ReadonlySet<string>> = {
  ProvisioningAllowed: new Set(['NamespaceDisabled']),
  CapacityAvailable: new Set([PoolReason.MaxSizeTooSmall]),
};

/**
 * The one writer of ClusterPool.status (docs/reference/kinds.md#who-writes-what): through the
 * subresource, only when it changed. A conflict writes nothing: the cache is behind the pool, and
 * the newer version's watch event brings the pass that computes the status from it (retrying
 * with backoff would only add load). A wait a person must act on that the write starts is
 * announced. The written pool, or undefined when nothing was written.
 */
export async function writePoolStatus(
  ports: ControllerPorts,
  pool: Pool,
  status: NonNullable<ClusterPool['status']>,
): Promise<Pool | undefined> {
  if (sameContent(pool.status ?? {}, status)) return undefined;
  const written = await orUndefined(
    ports.client.updateStatus(POOLS, { ...pool, status }),
    isConflict,
  );
  if (written) announceWaits(ports, pool, written);
  return written;
}

/** One Warning Event for each wait a person must act on that this write started. */
function announceWaits(ports: ControllerPorts, before: Pool, written: Pool): void {
  for (const [type, reasons] of Object.entries(POOL_NEEDS_A_PERSON)) {
    const started = startedWait(
      before.status?.conditions,
      written.status?.conditions,
      type,
      reasons,
    );
    if (started) void ports.events.record(written, 'Warning', started.reason, started.message);
  }
}
