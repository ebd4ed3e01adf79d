import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  createPoolInstance,
  fillPool,
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { SeededRandom } from '../../dev/support/seeded-random.js';
import { percentile, reportBench } from './bench-report.js';
import { LeaseWatchTimes } from './lease-watch-times.js';

const world = useWorld({
  namespace: 'bench-arrivals',
  enabled: true,
  awaitNamespaceDeletion: true,
  namespaceDeleteTimeoutMs: 10 * 60_000,
});
const { ns } = world;
const COUNT = Number(process.env.BENCH_ARRIVALS ?? 500);
const WINDOW_MS = Number(process.env.BENCH_ARRIVAL_SECONDS ?? 60) * 1000;
const SEED = Number(process.env.BENCH_SEED ?? 35);

/**
 * Arrival times (ms from the start) of a Poisson process, as independent CI jobs arrive: `count`
 * exponential gaps, scaled so that the last one arrives at the end of the window.
 */
function poissonArrivals(count: number, windowMs: number, seed: number): number[] {
  const random = new SeededRandom(seed);
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) times.push((t += random.exponential(1)));
  return times.map((time) => (time / t) * windowMs);
}

/**
 * Throughput (issue: scale): 500 leases arriving within a minute, at the times of a Poisson
 * process, on a pool of 500 warm hcp spares. Every lease must be Bound, no instance given to two
 * leases, and each lease's ADDED to Bound on one watch is reported, p50 and p95, as a ratio of
 * one plain status write (timed before the operator starts, and during the arrivals beside them).
 */
describe('lease arrivals', () => {
  let manager: Manager;
  afterAll(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name, 300_000);
    await manager?.stop();
  });

  it(`binds ${COUNT} leases arriving within ${WINDOW_MS / 1000} s`, async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'arrivals', { maxSize: COUNT, warmSpares: COUNT }));
    await fillPool(ns.api, ns.name, 'arrivals', COUNT);
    await createPoolInstance(ns.api, poolInstance(ns.name, 'other', 'reference'));
    let reference = await ns.api.get<ClusterInstance>(INSTANCES, 'reference', ns.name);
    let writesDone = 0;
    const plainWrite = async (): Promise<number> => {
      const started = performance.now();
      reference = await ns.api.updateStatus(INSTANCES, {
        ...reference,
        status: { phase: 'Provisioning', ocpVersion: `4.16.${writesDone++}` },
      });
      return performance.now() - started;
    };
    const quietWrites: number[] = [];
    for (let i = 0; i < 50; i++) quietWrites.push(await plainWrite());

    manager = await world.startOperator();
    await manager.informer(LEASES).synced;
    const abort = new AbortController();
    const times = new LeaseWatchTimes();
    await times.start(ns.api, ns.name, abort.signal);

    const arrivals = poissonArrivals(COUNT, WINDOW_MS, SEED);
    const allBound = waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      timeoutMs: WINDOW_MS + 300_000,
      description: `${COUNT} leases Bound`,
      until: (items) => items.filter((l) => l.status?.phase === 'Bound').length >= COUNT,
    });
    // Plain writes beside the arrivals, one at a time, until the last lease arrived.
    const busyWrites: number[] = [];
    const began = performance.now();
    const beside = (async () => {
      while (performance.now() - began < WINDOW_MS) busyWrites.push(await plainWrite());
    })();
    await Promise.all(
      arrivals.map(async (at, i) => {
        await new Promise((resolve) => setTimeout(resolve, at - (performance.now() - began)));
        await ns.api.create(
          LEASES,
          lease(ns.name, `job-${String(i).padStart(3, '0')}`, 'arrivals'),
        );
      }),
    );
    await beside;
    const bound = await allBound;
    abort.abort();

    const instanceRefs = bound.map((l) => l.status!.instanceRef!.name!);
    const doubleBinds = instanceRefs.length - new Set(instanceRefs).size;
    const claims = (await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name })).items
      .map((i) => i.status?.leaseRef?.name)
      .filter((name): name is string => !!name);
    expect(bound).toHaveLength(COUNT);
    expect(doubleBinds).toBe(0);
    expect(new Set(claims).size).toBe(claims.length);

    // What the lease controller did for it: its passes by result, and their time in the queue.
    const passes = await manager.metrics.registry
      .getSingleMetric('guestcluster_reconcile_total')!
      .get();
    const leasePasses = (result: string): number =>
      passes.values.find(
        (v) => v.labels.controller === 'clusterlease' && v.labels.result === result,
      )?.value ?? 0;
    const queued = await manager.metrics.registry
      .getSingleMetric('guestcluster_workqueue_queue_duration_seconds')!
      .get();
    const queuedOf = (name: string): number =>
      queued.values.find(
        (v) =>
          v.labels.controller === 'clusterlease' &&
          (v as { metricName?: string }).metricName === name,
      )?.value ?? 0;
    const waits = times
      .all()
      .filter((t) => t.added !== undefined && t.bound !== undefined)
      .map((t) => t.bound! - t.added!);
    const quiet = percentile(quietWrites, 50);
    const busy = percentile(busyWrites, 50);
    const figures = {
      'leases Bound': bound.length,
      'double binds': doubleBinds,
      'plain status write p50, before (ms)': quiet,
      'plain status write p50, during the arrivals (ms)': busy,
      'ADDED to Bound p50 (ms)': percentile(waits, 50),
      'ADDED to Bound p95 (ms)': percentile(waits, 95),
      'ADDED to Bound p99 (ms)': percentile(waits, 99),
      'ADDED to Bound p50 / plain write before': percentile(waits, 50) / quiet,
      'ADDED to Bound p95 / plain write before': percentile(waits, 95) / quiet,
      'ADDED to Bound p50 / plain write during': percentile(waits, 50) / busy,
      'ADDED to Bound p95 / plain write during': percentile(waits, 95) / busy,
      'lease passes: done': leasePasses('success'),
      'lease passes: requeued': leasePasses('requeue'),
      'lease passes: conflicts': leasePasses('conflict'),
      'lease passes: errors': leasePasses('error'),
      'lease queue wait, mean (ms)':
        (1000 * queuedOf('guestcluster_workqueue_queue_duration_seconds_sum')) /
        Math.max(1, queuedOf('guestcluster_workqueue_queue_duration_seconds_count')),
    };
    await reportBench({
      benchmark: 'lease-arrivals',
      description: `${COUNT} leases arriving within ${WINDOW_MS / 1000} s (Poisson, seed ${SEED}) on ${COUNT} warm hcp spares, ADDED to Bound on one watch`,
      figures,
      reference: { name: 'plain status write p50, before', value: quiet },
      measured: { name: 'ADDED to Bound p50', value: percentile(waits, 50) },
      target: 'every lease Bound, zero double binds, p50 ≤ 5× one plain status write',
      targetMet: bound.length === COUNT && doubleBinds === 0 && percentile(waits, 50) <= 5 * quiet,
    });
  });
});
