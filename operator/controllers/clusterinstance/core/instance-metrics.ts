import type { Registry } from 'prom-client';
import { Histogram } from 'prom-client';
import type { Instance, InstanceApi } from './instance-api.js';

const PROVISIONING_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600];
const histograms = new WeakMap<Registry, Histogram<'topology'>>();

/** guestcluster_instance_provisioning_seconds: creation to Ready, by topology. */
export function provisioningHistogram(api: InstanceApi): Histogram<'topology'> {
  const registry = api.metricsRegistry;
  let histogram = histograms.get(registry);
  if (!histogram) {
    histogram = new Histogram({
      name: 'guestcluster_instance_provisioning_seconds',
      help: 'Time from ClusterInstance creation to Ready, by topology.',
      labelNames: ['topology'],
      buckets: PROVISIONING_BUCKETS,
      registers: [registry],
    });
    histograms.set(registry, histogram);
  }
  return histogram;
}

/** Records an instance that has just become Ready. */
export function observeProvisioned(api: InstanceApi, instance: Instance): void {
  const created = Date.parse(instance.metadata?.creationTimestamp ?? '');
  if (Number.isNaN(created)) return;
  const seconds = Math.max(0, (api.now() - created) / 1000);
  provisioningHistogram(api).observe({ topology: instance.spec.type }, seconds);
}
