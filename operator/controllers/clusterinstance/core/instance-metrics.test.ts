import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { LABEL_POOL } from '../../../api/labels.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { observePhaseChange, observeTornDown } from './instance-metrics.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');

function apiWith(registry: Registry): InstanceApi {
  return { metricsRegistry: registry, now: () => NOW } as unknown as InstanceApi;
}

function instance(phase: string | undefined, extra: Partial<Instance['metadata']> = {}): Instance {
  return {
    metadata: {
      name: 'i-0',
      namespace: 'team',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { [LABEL_POOL]: 'pool' },
      ...extra,
    },
    spec: { type: 'hcp', poolRef: { name: 'pool' } },
    status: {
      ...(phase ? { phase } : {}),
      conditions: [
        {
          type: 'Ready',
          status: phase === 'Ready' ? 'True' : 'False',
          reason: phase === 'Failed' ? 'HCPPlacementConflict' : 'Ready',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  } as unknown as Instance;
}

/** A sample by its name (histograms: `_sum`, `_count`, `_bucket`) and labels. */
async function value(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const samples = (await registry.getMetricsAsJSON()).flatMap((metric) =>
    metric.values.map((v) => ({
      ...v,
      name: (v as { metricName?: string }).metricName ?? metric.name,
    })),
  );
  return samples.find(
    (v) => v.name === name && Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  )?.value;
}

describe('instance metrics', () => {
  it('counts a failure once, when the instance becomes Failed, by topology and reason', async () => {
    const registry = new Registry();
    const api = apiWith(registry);
    observePhaseChange(api, instance('Provisioning'), instance('Failed'));
    // Another pass that finds it Failed still: no new failure.
    observePhaseChange(api, instance('Failed'), instance('Failed'));
    expect(
      await value(registry, 'guestcluster_instance_failures_total', {
        topology: 'hcp',
        reason: 'HCPPlacementConflict',
      }),
    ).toBe(1);
  });

  it('observes provisioning once Ready, from creation', async () => {
    const registry = new Registry();
    observePhaseChange(apiWith(registry), instance('Provisioning'), instance('Ready'));
    expect(
      await value(registry, 'guestcluster_instance_provisioning_seconds_sum', { topology: 'hcp' }),
    ).toBe(600);
  });

  it('observes teardown from the deletion; for a leased instance, the release of its pool', async () => {
    const registry = new Registry();
    const api = apiWith(registry);
    const deleted = { deletionTimestamp: '2026-01-01T00:09:00Z' };
    observeTornDown(api, instance('Terminating', deleted));
    const leased = instance('Terminating', deleted);
    leased.status!.leaseRef = { name: 'job', uid: 'job-uid' };
    observeTornDown(api, leased);
    expect(
      await value(registry, 'guestcluster_instance_teardown_seconds_count', { topology: 'hcp' }),
    ).toBe(2);
    expect(
      await value(registry, 'guestcluster_instance_teardown_seconds_sum', { topology: 'hcp' }),
    ).toBe(120);
    expect(
      await value(registry, 'guestcluster_lease_release_seconds_count', {
        namespace: 'team',
        pool: 'pool',
      }),
    ).toBe(1);
  });
});
