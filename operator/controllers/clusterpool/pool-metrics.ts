import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import { isInstanceOf } from '../binding/pool-membership.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimedInstances, poolDemand } from '../binding/binding-model.js';
import { staleInstances } from './stale-rollout.js';

/** The states of guestcluster_pool_instances; every instance of a pool is in exactly one. */
export const INSTANCE_STATES = [
  'available',
  'leased',
  'provisioning',
  'failed',
  'terminating',
] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

/** What the gauges say of one pool. */
export interface PoolFigures {
  namespace: string;
  pool: string;
  instances: Record<InstanceState, number>;
  pendingLeases: number;
  /** spec.maxSize; undefined when the pool has no bound. */
  capacity: number | undefined;
  /**
   * Unclaimed instances of another version than status.version (stale-rollout.ts); undefined
   * for a pool that follows no VersionStream, or whose stream has not resolved.
   */
  stale?: number;
  /**
   * Unclaimed hibernated instances (counted as provisioning in `instances`); undefined for a pool
   * without spec.hibernation that has none.
   */
  hibernated?: number;
  /** status.autoscaling.desiredSpares: for a pool with spec.autoscaling or spec.schedule. */
  desiredSpares?: number;
}

/**
 * The state of each instance: being deleted, else claimed by a lease (whatever its phase), else
 * by its phase.
 */
export function poolFigures(
  pool: Stored<ClusterPool>,
  instances: readonly Instance[],
  leases: readonly Lease[],
): PoolFigures {
  const claimed = claimedInstances(instances, leases);
  const counts = Object.fromEntries(INSTANCE_STATES.map((s) => [s, 0])) as PoolFigures['instances'];
  for (const instance of instances) {
    const phase = instance.status?.phase;
    if (instance.metadata.deletionTimestamp) counts.terminating += 1;
    else if (claimed.has(instance.metadata.name)) counts.leased += 1;
    else if (phase === 'Ready') counts.available += 1;
    else if (phase === 'Failed') counts.failed += 1;
    else counts.provisioning += 1;
  }
  const { namespace, name } = pool.metadata;
  const version = pool.status?.version;
  const follows = !!pool.spec.template.versionStreamRef && !!version;
  return {
    namespace,
    pool: name,
    instances: counts,
    pendingLeases: poolDemand(name, leases, instances),
    capacity: typeof pool.spec.maxSize === 'number' ? pool.spec.maxSize : undefined,
    ...(follows ? { stale: staleInstances(instances, leases, version).length } : {}),
    ...hibernatedFigure(pool, instances, claimed),
    ...desiredOf(pool),
  };
}

function hibernatedFigure(
  pool: Stored<ClusterPool>,
  instances: readonly Instance[],
  claimed: Set<string>,
): { hibernated?: number } {
  const hibernated = instances.filter(
    (i) =>
      i.status?.phase === 'Hibernated' &&
      !i.metadata.deletionTimestamp &&
      !claimed.has(i.metadata.name),
  ).length;
  return pool.spec.hibernation || hibernated ? { hibernated } : {};
}

function desiredOf(pool: Stored<ClusterPool>): { desiredSpares?: number } {
  const desired = pool.status?.autoscaling?.desiredSpares;
  return desired === undefined ? {} : { desiredSpares: desired };
}

export interface PoolMetricsSource {
  cache: CacheReader;
  /** False until the caches hold the cluster's objects (and on a standby): nothing is reported. */
  synced: () => boolean;
  /** Report only pools of the namespaces this says the operator serves (default: all the cache holds). */
  serves?: (namespace: string) => boolean;
}

/**
 * Figures of every pool, computed from the caches at each scrape rather than counted from events:
 * they are right after a restart, and a deleted pool's series go with it.
 */
function allPools(source: PoolMetricsSource): PoolFigures[] {
  if (!source.synced()) return [];
  const pools = source.cache.view<ClusterPool>(POOLS).list();
  const instances = source.cache.view<ClusterInstance>(INSTANCES);
  const leases = source.cache.view<ClusterLease>(LEASES);
  return pools
    .filter((p) => !source.serves || source.serves(p.metadata.namespace))
    .map((pool) => {
      const { namespace, name } = pool.metadata;
      return poolFigures(
        pool,
        instances.list(namespace, (i) => isInstanceOf(i, name)),
        leases.list(namespace),
      );
    });
}

/** Registers the pool gauges (guestcluster_pool_*) in the manager's registry. */
export function registerPoolMetrics(registry: Registry, source: PoolMetricsSource): void {
  new Gauge({
    name: 'guestcluster_pool_instances',
    help: 'ClusterInstances of a pool by state (available, leased, provisioning, failed, terminating).',
    labelNames: ['namespace', 'pool', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const figures of allPools(source))
        for (const state of INSTANCE_STATES)
          this.set(
            { namespace: figures.namespace, pool: figures.pool, state },
            figures.instances[state],
          );
    },
  });
  new Gauge({
    name: 'guestcluster_pool_pending_leases',
    help: "ClusterLeases waiting in a pool's queue.",
    labelNames: ['namespace', 'pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, pool, pendingLeases } of allPools(source))
        this.set({ namespace, pool }, pendingLeases);
    },
  });
  new Gauge({
    name: 'guestcluster_pool_capacity',
    help: 'The most instances a pool may have (spec.maxSize); absent for a pool without a bound.',
    labelNames: ['namespace', 'pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, pool, capacity } of allPools(source))
        if (capacity !== undefined) this.set({ namespace, pool }, capacity);
    },
  });
  new Gauge({
    name: 'guestcluster_pool_hibernated_spares',
    help: 'Unclaimed instances of a pool kept stopped (spec.hibernation); a lease resumes one when no running spare is there. Absent for a pool that does not hibernate.',
    labelNames: ['namespace', 'pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, pool, hibernated } of allPools(source))
        if (hibernated !== undefined) this.set({ namespace, pool }, hibernated);
    },
  });
  new Gauge({
    name: 'guestcluster_pool_stale_instances',
    help: 'Unclaimed instances of a pool that follows a VersionStream whose version is not the one new instances get; they are replaced one at a time.',
    labelNames: ['namespace', 'pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, pool, stale } of allPools(source))
        if (stale !== undefined) this.set({ namespace, pool }, stale);
    },
  });
  new Gauge({
    name: 'guestcluster_pool_desired_spares',
    help: 'The spares a pool with spec.autoscaling or spec.schedule keeps now (status.autoscaling.desiredSpares, in place of spec.warmSpares).',
    labelNames: ['namespace', 'pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, pool, desiredSpares } of allPools(source))
        if (desiredSpares !== undefined) this.set({ namespace, pool }, desiredSpares);
    },
  });
}
