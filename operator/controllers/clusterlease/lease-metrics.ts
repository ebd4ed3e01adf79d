import type { Registry } from 'prom-client';
import { Histogram } from 'prom-client';
import { findCondition } from '../../api/conditions.js';
import type { Instance, Lease } from '../binding/binding-model.js';

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
        help: 'Time from ClusterLease creation to Bound, by pool and whether a Ready spare was there when the lease was created.',
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
 * Records a lease that has just been bound to `instance`. A spare was ready when the instance
 * had become Ready no later than the lease was created (the lease did not wait for provisioning).
 */
export function observeBound(
  metrics: LeaseMetrics | undefined,
  lease: Lease,
  instance: Instance,
  now: number,
): void {
  const created = Date.parse(lease.metadata.creationTimestamp ?? '');
  if (!metrics || Number.isNaN(created)) return;
  const readySince = Date.parse(
    findCondition(instance.status?.conditions, 'Ready')?.lastTransitionTime ?? '',
  );
  const spareReady = !Number.isNaN(readySince) && readySince <= created;
  metrics.wait.observe(
    {
      namespace: lease.metadata.namespace,
      pool: lease.spec.poolRef.name,
      spare_ready: String(spareReady),
    },
    Math.max(0, (now - created) / 1000),
  );
}
