import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { FINALIZER_LEASE_RELEASE } from '../../operator/api/labels.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { controllerPasses } from './controller-passes.js';
import {
  fillPool,
  hcpPool,
  lease,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import { inBatches } from '../support/batches.js';
import { useWorld } from '../support/world.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { reportBench } from './bench-report.js';

const world = useWorld({ namespace: 'bench-resync', enabled: true, awaitNamespaceDeletion: true });
const { ns } = world;
const COUNT = Number(process.env.BENCH_RESYNC_LEASES ?? 100);
const WINDOW_MS = 30_000;
/** The lease controller's slowest safety pass (a waiting lease's resync): the yardstick. */
const RESYNC_PERIOD_MS = 5 * 60_000;

/**
 * How often the lease controller looks at Bound leases that nothing changes: 100 leases with
 * `ttl: 720h` (a requeue delay beyond what one Node.js timer holds) over 30 s, once they are all
 * bound and settled. Target: below one pass per lease per resync period (5 minutes), that is
 * fewer than 10 passes in the window; a timer that overflowed would fire at once, again and again.
 */
describe('lease controller reconcile rate', () => {
  let manager: Manager;
  afterAll(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it(`is measured over ${COUNT} Bound leases of 720h for ${WINDOW_MS / 1000} s`, async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'resync', { maxSize: COUNT, warmSpares: COUNT }));
    await fillPool(ns.api, ns.name, 'resync', COUNT);
    manager = await world.startOperator();
    const names = Array.from({ length: COUNT }, (_, i) => `long-${i}`);
    await inBatches(names, 25, (name) =>
      ns.api.create(LEASES, lease(ns.name, name, 'resync', '720h')),
    );
    await waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      until: (items) =>
        items.length === COUNT &&
        items.every(
          (l) =>
            l.status?.phase === 'Bound' &&
            l.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE),
        ),
      timeoutMs: 120_000,
      description: `${COUNT} leases Bound with their finalizer`,
    });
    // The passes that the binding's own events bring are over within a moment.
    await delay(2000);

    const before = await controllerPasses(manager, 'clusterlease');
    await delay(WINDOW_MS);
    const passes = (await controllerPasses(manager, 'clusterlease')) - before;
    const allowed = (COUNT * WINDOW_MS) / RESYNC_PERIOD_MS;
    expect(passes).toBeLessThan(allowed);
    await reportBench({
      benchmark: 'lease-resync',
      description: `lease controller passes over ${WINDOW_MS / 1000} s with ${COUNT} Bound leases of ttl 720h`,
      figures: {
        'passes in the window': passes,
        'passes per lease per 5-minute resync period':
          (passes / COUNT) * (RESYNC_PERIOD_MS / WINDOW_MS),
      },
      reference: { name: 'one pass per lease per resync period', value: allowed },
      measured: { name: 'passes in the window', value: passes },
      target: `< ${allowed} passes (below one pass per lease per 5-minute resync period)`,
      targetMet: passes < allowed,
    });
  });
});
