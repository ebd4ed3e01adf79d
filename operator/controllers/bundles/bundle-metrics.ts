import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';

export type BundleFailures = Counter<'bundle' | 'reason'>;

const byRegistry = new WeakMap<Registry, BundleFailures>();

/**
 * guestcluster_bundle_failures_total: bundles that became Failed, by bundle and the reason of
 * their Prepared condition (the failed step: DownloadFailed, VerifyFailed, …).
 */
export function bundleFailures(registry: Registry): BundleFailures {
  let counter = byRegistry.get(registry);
  if (!counter) {
    counter = new Counter({
      name: 'guestcluster_bundle_failures_total',
      help: 'CRCBundle preparations that failed, by bundle and reason (the failed step).',
      labelNames: ['bundle', 'reason'],
      registers: [registry],
    });
    byRegistry.set(registry, counter);
  }
  return counter;
}
