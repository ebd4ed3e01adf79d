import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { FINALIZER_LEASE_RELEASE } from '../../operator/api/labels.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { EVENTS } from '../../client/api/core-resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  releaseLeasesAndPools,
  hcpPool,
  lease,
  poolInstance,
  fillPool,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { percentile, reportBench } from './bench-report.js';

const world = useWorld({ namespace: 'bench-bind', enabled: true, awaitNamespaceDeletion: true });
const { ns } = world;
const LEASE_COUNT = Number(process.env.BENCH_LEASES ?? 200);

/**
 * Bind latency with warm spares: 200 leases, one after another, each timed from its creation to
 * seeing it Bound, both on one watch (its ADDED event, then the MODIFIED event that makes it
 * Bound). Beside every bind, one plain status write (a PUT of an instance's status) is timed on
 * the same apiserver. Each bind and each reference write starts from a settled system: the
 * previous lease's release finalizer and its Bound Event have been seen, so neither measurement
 * carries the tail of the bind before it. The time from sending the create request is reported
 * too (it adds the create's own round trip, which is not binding), and so are plain writes timed
 * before the operator started.
 */
describe('bind latency', () => {
  let manager: Manager;
  const abort = new AbortController();
  afterAll(async () => {
    abort.abort();
    // The release finalizer needs the manager: stop it only after this.
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it(`is measured over ${LEASE_COUNT} leases`, async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'warm', { maxSize: LEASE_COUNT, warmSpares: LEASE_COUNT }),
    );
    await fillPool(ns.api, ns.name, 'warm', LEASE_COUNT);

    // The reference: plain status writes of one object outside any pool.
    await createPoolInstance(ns.api, poolInstance(ns.name, 'other', 'reference'));
    let reference = await ns.api.get<ClusterInstance>(INSTANCES, 'reference', ns.name);
    const plainWrite = async (i: number): Promise<number> => {
      const started = performance.now();
      reference = await ns.api.updateStatus(INSTANCES, {
        ...reference,
        status: { phase: 'Provisioning', ocpVersion: `4.16.${i}` },
      });
      return performance.now() - started;
    };
    const writesBeforeOperator: number[] = [];
    for (let i = 0; i < LEASE_COUNT; i++) writesBeforeOperator.push(await plainWrite(i));

    manager = await world.startOperator();
    await manager.informer(LEASES).synced;
    const seen = new SeenOnWatches();
    await seen.start(ns.api, ns.name, abort.signal);

    const writes: number[] = [];
    const latencies: number[] = [];
    const seenToBound: number[] = [];
    for (let i = 0; i < LEASE_COUNT; i++) {
      const name = `job-${i}`;
      writes.push(await plainWrite(LEASE_COUNT + i));
      const settled = seen.settled(name);
      const sent = performance.now();
      await ns.api.create(LEASES, lease(ns.name, name, 'warm'));
      const { added, bound } = await settled;
      latencies.push(bound - sent);
      seenToBound.push(bound - added);
    }
    expect(latencies).toHaveLength(LEASE_COUNT);

    const figures = {
      'plain status write p50 (ms)': percentile(writes, 50),
      'plain status write p99 (ms)': percentile(writes, 99),
      'plain write before the operator p50 (ms)': percentile(writesBeforeOperator, 50),
      'create to Bound p50 (ms)': percentile(latencies, 50),
      'create to Bound p99 (ms)': percentile(latencies, 99),
      'ADDED to Bound on the same watch p50 (ms)': percentile(seenToBound, 50),
      'ADDED to Bound on the same watch p99 (ms)': percentile(seenToBound, 99),
    };
    await reportBench({
      benchmark: 'bind-latency',
      description: `lease created to Bound seen on a watch, ${LEASE_COUNT} leases one after another on warm spares, each beside one plain status write`,
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

/**
 * What the watches show of each lease: when it was ADDED and became Bound, and when its bind had
 * settled (its release finalizer is on and its Bound Event exists).
 */
class SeenOnWatches {
  private readonly added = new Map<string, number>();
  private readonly bound = new Map<string, number>();
  private readonly finalized = new Set<string>();
  private readonly announced = new Set<string>();
  private waiter: { name: string; resolve: () => void } | undefined;

  async start(api: ApiClient, namespace: string, signal: AbortSignal): Promise<void> {
    const [leases, events] = await Promise.all([
      api.list(LEASES, { namespace }),
      api.list(EVENTS, { namespace }),
    ]);
    void api
      .watch<ClusterLease>(
        LEASES,
        { namespace, resourceVersion: leases.resourceVersion },
        (event) => {
          const name = event.object.metadata!.name!;
          if (event.type === 'ADDED') this.added.set(name, performance.now());
          if (event.object.status?.phase === 'Bound' && !this.bound.has(name))
            this.bound.set(name, performance.now());
          if (event.object.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE))
            this.finalized.add(name);
          this.check();
        },
        signal,
      )
      .catch(() => undefined);
    void api
      .watch<KubeObject & { reason?: string; involvedObject?: { kind?: string; name?: string } }>(
        EVENTS,
        { namespace, resourceVersion: events.resourceVersion },
        (event) => {
          const { reason, involvedObject } = event.object;
          if (reason === 'Bound' && involvedObject?.kind === LEASES.kind)
            this.announced.add(involvedObject.name!);
          this.check();
        },
        signal,
      )
      .catch(() => undefined);
  }

  /** Resolves with the lease's ADDED and Bound times once its bind has settled. */
  settled(name: string): Promise<{ added: number; bound: number }> {
    return new Promise((resolve) => {
      this.waiter = {
        name,
        resolve: () => resolve({ added: this.added.get(name)!, bound: this.bound.get(name)! }),
      };
      this.check();
    });
  }

  private check(): void {
    const name = this.waiter?.name;
    if (!name || !this.bound.has(name) || !this.finalized.has(name) || !this.announced.has(name))
      return;
    const { resolve } = this.waiter!;
    this.waiter = undefined;
    resolve();
  }
}
