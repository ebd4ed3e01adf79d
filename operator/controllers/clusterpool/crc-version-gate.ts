import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterPool } from '../../../client/api/resources.js';
import type { CrcBounds } from '../../crc-bounds.js';
import { crcVersionRefusal } from '../../crc-bounds.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Pool } from './pool-conditions.js';
import { PoolReason } from './pool-conditions.js';

type PoolStatus = NonNullable<ClusterPool['status']>;

/**
 * The admin's allow-list of CRC versions (operator setting --allowed-crc-versions): a pool naming
 * another crcVersion (or following a stream whose bundle version is another) gets no CRCBundle and no instances; its ProvisioningAllowed and
 * CapacityAvailable conditions say which setting refuses it, and a Warning Event says so once.
 * Returns the status to write, or undefined when the pool's version is allowed (or it has none).
 */
export function refusedCrcVersion(
  ports: ControllerPorts,
  bounds: CrcBounds,
  pool: Pool,
  crcVersion: string | undefined,
  status: PoolStatus,
): PoolStatus | undefined {
  const message = crcVersionRefusal(bounds, crcVersion);
  return message
    ? refused(ports, pool, PoolReason.CRCVersionNotAllowed, message, status)
    : undefined;
}

/**
 * A pool that may create nothing for a reason of its CRC source (the version, the bundle): its
 * ProvisioningAllowed and CapacityAvailable conditions say why, and a Warning Event says so once.
 */
export function refused(
  ports: ControllerPorts,
  pool: Pool,
  reason: string,
  message: string,
  status: PoolStatus,
): PoolStatus {
  const now = ports.clock.now();
  const observedGeneration = pool.metadata.generation;
  let conditions = status.conditions;
  for (const type of ['ProvisioningAllowed', 'CapacityAvailable'])
    conditions = setCondition(
      conditions,
      { type, status: 'False', reason, message, observedGeneration },
      now,
    );
  const before = findCondition(pool.status?.conditions, 'ProvisioningAllowed');
  if (before?.reason !== reason || before.message !== message)
    void ports.events.record(pool, 'Warning', reason, message);
  return { ...status, conditions };
}
