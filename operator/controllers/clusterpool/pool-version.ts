import type { Condition, ConditionUpdate } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterPool, VersionStream } from '../../../client/api/resources.js';
import { VERSION_STREAMS } from '../../../client/api/resources.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import type { Pool } from './pool-conditions.js';
import { PoolEvent } from './pool-conditions.js';
import type { InstanceRelease } from './pool-instance.js';
import { currentCondition, staleInstances } from './stale-rollout.js';
import type { StreamAnswer } from './stream-release.js';
import { followingCondition, streamAnswer } from './stream-release.js';

type PoolStatus = NonNullable<ClusterPool['status']>;

/** The conditions only a pool that follows a VersionStream has. */
const STREAM_CONDITIONS = ['VersionStreamResolved', 'AllInstancesCurrent'];

/** The followed stream's answer, from the cache; undefined for a pool that follows none. */
export async function followedStream(
  ports: ControllerPorts,
  pool: Pool,
): Promise<StreamAnswer | undefined> {
  const name = pool.spec.template.versionStreamRef?.name;
  if (!name) return undefined;
  const stream = (await ports.cache.read<VersionStream>(VERSION_STREAMS)).get(name);
  return streamAnswer(pool, stream);
}

/**
 * status.version and the stream conditions: VersionStreamResolved and AllInstancesCurrent for a
 * pool that follows a stream (with the release it gives), neither for one that does not.
 */
export function versionStatus(
  pool: Pool,
  status: PoolStatus,
  seen: { release?: InstanceRelease; instances: readonly Instance[]; leases: readonly Lease[] },
  now: number,
): PoolStatus {
  const { release, instances, leases } = seen;
  const conditions = status.conditions ?? [];
  if (!pool.spec.template.versionStreamRef) {
    const kept = conditions.filter((c) => !STREAM_CONDITIONS.includes(c.type));
    return { ...status, version: pool.spec.template.ocpVersion, conditions: kept };
  }
  if (!release) return status;
  const version = release.ocpVersion;
  const stale = staleInstances(instances, leases, version).length;
  let next: Condition[] = setCondition(conditions, followingCondition(pool, release), now);
  next = setCondition(next, currentCondition(pool, stale, version), now);
  return { ...status, version, conditions: next };
}

/** The stream's problem as the pool's VersionStreamResolved condition, with a Warning Event once. */
export function unresolvedStatus(
  ports: ControllerPorts,
  pool: Pool,
  status: PoolStatus,
  unresolved: ConditionUpdate,
): PoolStatus {
  const before = findCondition(pool.status?.conditions, unresolved.type);
  if (before?.reason !== unresolved.reason || before.message !== unresolved.message)
    void ports.events.record(pool, 'Warning', unresolved.reason, unresolved.message);
  const conditions = setCondition(status.conditions, unresolved, ports.clock.now());
  return { ...status, conditions };
}

/** A Normal Event when the version new instances get moved (the stream moved). */
export function announceVersion(ports: ControllerPorts, pool: Pool, status: PoolStatus): void {
  const was = pool.status?.version;
  if (!pool.spec.template.versionStreamRef || !was || was === status.version) return;
  const current = findCondition(status.conditions, 'AllInstancesCurrent');
  const stale = current?.status === 'False' ? `; ${current.message}` : '';
  void ports.events.record(
    pool,
    'Normal',
    PoolEvent.VersionChanged,
    `New instances get OpenShift ${status.version} (was ${was})${stale}`,
  );
}
