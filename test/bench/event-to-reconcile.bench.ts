import { afterAll, describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { percentile, reportBench } from './bench-report.js';

const world = useWorld({ namespace: 'bench-reconcile', awaitNamespaceDeletion: true });
const { ns } = world;
const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 1000);

/**
 * Event-to-reconcile latency: for each of 1,000 ConfigMaps, the time from sending its create to
 * the controller's first reconcile of it, beside the time to the same object's event on a plain
 * watch opened on the same apiserver in the same run.
 */
describe('event-to-reconcile latency', () => {
  let manager: Manager;
  const abort = new AbortController();
  afterAll(async () => {
    abort.abort();
    await manager?.stop();
  });

  it(`is measured over ${OBJECTS} objects`, async () => {
    const sentAt = new Map<string, number>();
    const watchedAt = new Map<string, number>();
    const reconciledAt = new Map<string, number>();
    let allReconciled: () => void = () => undefined;
    let allWatched: () => void = () => undefined;
    const done = Promise.all([
      new Promise<void>((resolve) => (allReconciled = resolve)),
      new Promise<void>((resolve) => (allWatched = resolve)),
    ]);

    manager = world.manager(() => ({
      name: 'bench',
      forType: CONFIG_MAPS,
      reconcile: (key) => {
        const name = key.split('/')[1]!;
        if (key.startsWith(`${ns.name}/`) && !reconciledAt.has(name)) {
          reconciledAt.set(name, performance.now());
          if (reconciledAt.size === OBJECTS) allReconciled();
        }
        return Promise.resolve();
      },
    }));
    await manager.start();
    await manager.informer(CONFIG_MAPS).synced;

    const start = await ns.api.list(CONFIG_MAPS, { namespace: ns.name });
    void ns.api
      .watch<KubeObject>(
        CONFIG_MAPS,
        { namespace: ns.name, resourceVersion: start.resourceVersion },
        (event) => {
          const name = event.object.metadata?.name ?? '';
          if (event.type !== 'ADDED' || watchedAt.has(name)) return;
          watchedAt.set(name, performance.now());
          if (watchedAt.size === OBJECTS) allWatched();
        },
        abort.signal,
      )
      .catch(() => undefined);

    for (let i = 0; i < OBJECTS; i++) {
      const name = `cm-${i}`;
      sentAt.set(name, performance.now());
      await ns.api.create(CONFIG_MAPS, { metadata: { name, namespace: ns.name } });
    }
    await done;

    const names = [...sentAt.keys()];
    const watchLatency = names.map((n) => watchedAt.get(n)! - sentAt.get(n)!);
    const reconcileLatency = names.map((n) => reconciledAt.get(n)! - sentAt.get(n)!);
    expect([...watchLatency, ...reconcileLatency].every(Number.isFinite)).toBe(true);
    const figures = {
      'plain watch p50 (ms)': percentile(watchLatency, 50),
      'plain watch p99 (ms)': percentile(watchLatency, 99),
      'event to reconcile p50 (ms)': percentile(reconcileLatency, 50),
      'event to reconcile p99 (ms)': percentile(reconcileLatency, 99),
    };
    await reportBench({
      benchmark: 'event-to-reconcile',
      description: `latency from create to first reconcile over ${OBJECTS} ConfigMaps, beside a plain watch`,
      figures,
      reference: { name: 'plain watch p50', value: figures['plain watch p50 (ms)'] },
      measured: { name: 'event to reconcile p50', value: figures['event to reconcile p50 (ms)'] },
      target: 'p50 ≤ 2× plain watch p50',
      targetMet: figures['event to reconcile p50 (ms)'] <= 2 * figures['plain watch p50 (ms)'],
    });
  });
});
