import type { Registry } from 'prom-client';
import { Histogram } from 'prom-client';
import type { Lease } from '../binding/binding-model.js';

/** Hive's claim-assignment-delay buckets: 1 s, 30 s, 2 m, 10 m, 30 m, 50 m, 2 h. */
export const LEASE_WAIT_BUCKETS = [1, 30, 120, 600, 1800, 3000, 7200];

/** What the lease controller records. */
export interface LeaseMetrics {
  /** guestcluster_lease_wait_seconds: creation to Bound. */
  wait: Histogram<'namespace' | 'pool' | 'spare_ready'>;
}

const byRegistry = new WeakMap<Registry, LeaseMetrics>();

/** The lease metrics of a registry, created on first use. */
export function leaseMetrics(registry: Registry): LeaseMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = {
      wait: new Histogram({
        name: 'guestcluster_lease_wait_seconds',
        help: 'Time from ClusterLease creation to Bound, by pool and whether a Ready spare took it at once (spare_ready).',
        labelNames: ['namespace', 'pool', 'spare_ready'],
        buckets: LEASE_WAIT_BUCKETS,
        registers: [registry],
      }),
    };
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

/**
 * Records a lease that has just been bound, as the version its binding pass read. A spare was
 * ready when that pass is the lease's first: a lease that had to wait (for capacity, or for its
 * pool) carries the Pending phase it was given then.
 */
export function observeBound(metrics: LeaseMetrics | undefined, lease: Lease, now: number): void {
  const created = Date.parse(lease.metadata.creationTimestamp ?? '');
  if (!metrics || Number.isNaN(created)) return;
  metrics.wait.observe(
    {
      namespace: lease.metadata.namespace,
      pool: lease.spec.poolRef.name,
      spare_ready: String(!lease.status?.phase),
    },
    Math.max(0, (now - created) / 1000),
  );
}
