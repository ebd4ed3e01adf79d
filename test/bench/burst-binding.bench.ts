import { afterAll, describe, expect, it } from '@jest/globals';
import { FINALIZER_LEASE_RELEASE } from '../../operator/api/labels.js';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  releaseLeasesAndPools,
  hcpPool,
  lease,
  fillPool,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { reportBench } from './bench-report.js';
import { inBatches } from '../support/batches.js';

const world = useWorld({ namespace: 'bench-burst', enabled: true, awaitNamespaceDeletion: true });
const { ns } = world;
const COUNT = Number(process.env.BENCH_BURST ?? 1000);
/** The operator under test runs two workers per controller; the direct writes get the same. */
const CONCURRENCY = 2;

/** Runs `work` on every item with `concurrency` workers. */
async function withWorkers<T>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * A burst: 1,000 leases created at once on 1,000 Ready instances, until all are Bound; beside the
 * time the minimum API writes of the same binds take when sent directly (the lease creates, then
 * for each bind the claim, then the Secret copy, then the lease status, then the release
 * finalizer) with the same number of workers. The operator's time runs until every lease is Bound
 * and carries its finalizer, the last of those writes.
 */
describe('burst binding', () => {
  let manager: Manager;
  afterAll(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name, 300_000);
    await manager?.stop();
  });

  it(`binds ${COUNT} leases on ${COUNT} Ready instances`, async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'burst', { maxSize: COUNT, warmSpares: COUNT }));
    const names = await fillPool(ns.api, ns.name, 'burst', COUNT);

    // The reference: the same binds' writes, sent directly, on leases of a pool nobody runs yet.
    const instances = new Map(
      (await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name })).items.map((i) => [
        i.metadata!.name!,
        i,
      ]),
    );
    // Timed like the operator run: from the first lease create until the last bind is written.
    const directStarted = performance.now();
    const refLeases: ClusterLease[] = [];
    await inBatches(
      names.map((_, i) => `ref-${i}`),
      50,
      async (name) =>
        refLeases.push(
          await ns.api.create<ClusterLease>(LEASES, lease(ns.name, name, 'burst-reference')),
        ),
    );
    await withWorkers(
      refLeases.map((l, i) => [l, instances.get(names[i]!)!] as const),
      CONCURRENCY,
      async ([refLease, instance]) => {
        // The claim, then the copy: the copy never holds a cluster whose claim was not won.
        await ns.api.updateStatus(INSTANCES, {
          ...instance,
          status: { ...instance.status, phase: 'Ready' as const },
        });
        await ns.api.create(SECRETS, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${refLease.metadata!.name}-kubeconfig`, namespace: ns.name },
          data: {},
        } as never);
        const bound = await ns.api.updateStatus(LEASES, {
          ...refLease,
          status: { phase: 'Bound', instanceRef: { name: instance.metadata!.name! } },
        });
        await ns.api.update(LEASES, {
          ...bound,
          metadata: { ...bound.metadata, finalizers: ['bench/none'] },
        });
      },
    );
    const directMs = performance.now() - directStarted;
    // Clear the reference leases before the operator starts (they hold no claim).
    await inBatches(refLeases, 50, async (l) => {
      const current = await ns.api.get<ClusterLease>(LEASES, l.metadata!.name!, ns.name);
      await ns.api.update(LEASES, {
        ...current,
        metadata: { ...current.metadata, finalizers: [] },
      });
      await ns.api.delete(LEASES, l.metadata!.name!, ns.name);
    });

    manager = await world.startOperator();
    await manager.informer(INSTANCES).synced;
    const burstStarted = performance.now();
    const leaseNames = names.map((_, i) => `job-${String(i).padStart(4, '0')}`);
    let allBoundMs: number | undefined;
    const allSettled = waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      timeoutMs: 600_000,
      description: `${COUNT} leases Bound with their release finalizer`,
      until: (items) => {
        const boundNow = items.filter((l) => l.status?.phase === 'Bound');
        if (boundNow.length < COUNT) return false;
        allBoundMs ??= performance.now() - burstStarted;
        return boundNow.every((l) => l.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE));
      },
    });
    await inBatches(leaseNames, 50, (name) => ns.api.create(LEASES, lease(ns.name, name, 'burst')));
    const bound = await allSettled;
    const operatorMs = performance.now() - burstStarted;

    const instanceRefs = bound.map((l) => l.status!.instanceRef!.name!);
    const doubleBinds = instanceRefs.length - new Set(instanceRefs).size;
    expect(doubleBinds).toBe(0);

    await reportBench({
      benchmark: 'burst-binding',
      description: `${COUNT} leases created at once on ${COUNT} Ready instances until all Bound, beside the same binds' writes sent directly (${CONCURRENCY} workers)`,
      figures: {
        'operator: all Bound (s)': allBoundMs! / 1000,
        'operator: all Bound with finalizer (s)': operatorMs / 1000,
        'direct writes (s)': directMs / 1000,
        'double binds': doubleBinds,
      },
      reference: { name: 'direct writes', value: directMs },
      measured: { name: 'operator', value: operatorMs },
      target: '≤ 2× the direct writes, zero double binds',
      targetMet: operatorMs <= 2 * directMs && doubleBinds === 0,
    });
  });
});
