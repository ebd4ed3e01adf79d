import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterPool } from '../../api/resources.js';
import { crcVersionRefusal } from '../../crc-bounds.js';
import type { Manager } from '../../runtime/manager.js';

type PoolStatus = NonNullable<ClusterPool['status']>;

export const CRC_VERSION_NOT_ALLOWED = 'CRCVersionNotAllowed';

/**
 * The admin's allow-list of CRC versions (operator setting --allowed-crc-versions): a pool naming
 * another crcVersion gets no CRCBundle and no instances; its ProvisioningAllowed and
 * CapacityAvailable conditions say which setting refuses it, and a Warning Event says so once.
 * Returns the status to write, or undefined when the pool's version is allowed (or it has none).
 */
export function refusedCrcVersion(
  manager: Manager,
  pool: ClusterPool,
  status: PoolStatus,
): PoolStatus | undefined {
  const crcVersion = pool.spec.type === 'crc' ? pool.spec.template.crcVersion : undefined;
  const message = crcVersionRefusal(manager.config.crc, crcVersion);
  if (!message) return undefined;
  const now = manager.clock.now();
  const observedGeneration = pool.metadata?.generation;
  let conditions = status.conditions;
  for (const type of ['ProvisioningAllowed', 'CapacityAvailable'])
    conditions = setCondition(
      conditions,
      { type, status: 'False', reason: CRC_VERSION_NOT_ALLOWED, message, observedGeneration },
      now,
    );
  const before = findCondition(pool.status?.conditions, 'ProvisioningAllowed');
  if (before?.reason !== CRC_VERSION_NOT_ALLOWED || before.message !== message)
    void manager.events.record(pool, 'Warning', CRC_VERSION_NOT_ALLOWED, message);
  return { ...status, conditions };
}
