import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../operator/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../operator/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  enableNamespace,
  releaseAllLeases,
  hcpPool,
  lease,
  poolInstance,
  startOperator,
  fillPool,
} from '../operator/pool-fixtures.js';
import { useTestNamespace } from '../support/cluster.js';
import { percentile, reportBench } from './bench-report.js';

const ns = useTestNamespace('bench-bind');
const LEASE_COUNT = Number(process.env.BENCH_LEASES ?? 200);

/**
 * Bind latency with warm spares: for each of 200 leases, created one after another, the time from
 * the lease's creation to seeing it Bound, both seen on one watch (its ADDED event, then the
 * MODIFIED event that makes it Bound); beside the latency of one plain status write (a PUT of an
 * instance's status) measured on the same apiserver in the same run. The time from sending the
 * create request is reported too: it adds the create's own round trip, which is not binding.
 */
describe('bind latency', () => {
  let manager: Manager;
  const abort = new AbortController();
  afterAll(async () => {
    abort.abort();
    // The release finalizer needs the manager: stop it only after this.
    await releaseAllLeases(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it(`is measured over ${LEASE_COUNT} leases`, async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'warm', { maxSize: LEASE_COUNT, warmSpares: LEASE_COUNT }),
    );
    await fillPool(ns.api, ns.name, 'warm', LEASE_COUNT);

    // The reference: plain status writes of one object, as fast as the apiserver takes them.
    await ns.api.create(INSTANCES, poolInstance(ns.name, 'other', 'reference'));
    const writes: number[] = [];
    let reference = await ns.api.get<ClusterInstance>(INSTANCES, 'reference', ns.name);
    for (let i = 0; i < LEASE_COUNT; i++) {
      const started = performance.now();
      reference = await ns.api.updateStatus(INSTANCES, {
        ...reference,
        status: { phase: 'Provisioning', ocpVersion: `4.16.${i}` },
      });
      writes.push(performance.now() - started);
    }

    manager = await startOperator(ns.kubeConfig, undefined, { namespace: ns.name });
    await manager.informer(LEASES).synced;
    const boundAt = new Map<string, number>();
    const addedAt = new Map<string, number>();
    let onBound: (name: string) => void = () => undefined;
    const start = await ns.api.list(LEASES, { namespace: ns.name });
    void ns.api
      .watch<ClusterLease>(
        LEASES,
        { namespace: ns.name, resourceVersion: start.resourceVersion },
        (event) => {
          const name = event.object.metadata!.name!;
          if (event.type === 'ADDED') addedAt.set(name, performance.now());
          if (event.object.status?.phase === 'Bound' && !boundAt.has(name)) {
            boundAt.set(name, performance.now());
            onBound(name);
          }
        },
        abort.signal,
      )
      .catch(() => undefined);

    const latencies: number[] = [];
    const seenToBound: number[] = [];
    for (let i = 0; i < LEASE_COUNT; i++) {
      const name = `job-${i}`;
      const bound = new Promise<void>((resolve) => (onBound = (n) => n === name && resolve()));
      const sent = performance.now();
      await ns.api.create(LEASES, lease(ns.name, name, 'warm'));
      await bound;
      latencies.push(boundAt.get(name)! - sent);
      seenToBound.push(boundAt.get(name)! - addedAt.get(name)!);
    }
    expect(latencies).toHaveLength(LEASE_COUNT);

    const figures = {
      'plain status write p50 (ms)': percentile(writes, 50),
      'plain status write p99 (ms)': percentile(writes, 99),
      'create to Bound p50 (ms)': percentile(latencies, 50),
      'create to Bound p99 (ms)': percentile(latencies, 99),
      'ADDED to Bound on the same watch p50 (ms)': percentile(seenToBound, 50),
      'ADDED to Bound on the same watch p99 (ms)': percentile(seenToBound, 99),
    };
    await reportBench({
      benchmark: 'bind-latency',
      description: `lease created to Bound seen on a watch, ${LEASE_COUNT} leases one after another on warm spares`,
      figures,
      reference: { name: 'plain status write p50', value: figures['plain status write p50 (ms)'] },
      measured: {
        name: 'created (ADDED) to Bound p50',
        value: figures['ADDED to Bound on the same watch p50 (ms)'],
      },
      target: 'p50 ≤ 3× one plain status write',
      targetMet:
        figures['ADDED to Bound on the same watch p50 (ms)'] <=
        3 * figures['plain status write p50 (ms)'],
    });
  });
});
