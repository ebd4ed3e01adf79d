import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import { extendLease } from '../../client/lease/extend-lease.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { loadTimings } from '../../operator/timings.js';
import { useWorld } from '../support/world.js';
import { installLeaseTtlPolicy } from '../support/lease-ttl-policy.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import {
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'extend', enabled: true });
const { ns } = world;
const EVENTS = resourceType('v1', 'Event', 'events');
type Event = KubeObject & {
  reason: string;
  type: string;
  message: string;
  involvedObject: { name: string };
};
const MINUTE = 60_000;

describe('bounded lease extension', () => {
  const clock = new TestClock();
  let manager: Manager;

  beforeAll(async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'capped', { maxSize: 1, maxLeaseDuration: '2h', maxHoldDuration: '30m' }),
    );
    await ns.api.create(POOLS, hcpPool(ns.name, 'open', { maxSize: 1 }));
    for (const pool of ['capped', 'open']) {
      await createPoolInstance(ns.api, poolInstance(ns.name, pool, `${pool}-0`));
      await settleInstance(ns.api, ns.name, `${pool}-0`);
    }
    await installLeaseTtlPolicy(ns.api, ns.name, 'capped');
    // The warning time through the operator's own setting, as an admin gives it.
    const problems: string[] = [];
    const timings = loadTimings({ timings: 'lease.expiryWarning=10m' }, {}, problems);
    expect(problems).toEqual([]);
    manager = await world.startOperator({ clock, config: { timings } });
  });

  afterAll(async () => {
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  const bound = (name: string): Promise<ClusterLease | undefined> =>
    waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name,
      until: (l) => l?.status?.phase === 'Bound',
    });

  it("refuses a lease created above its pool's maxLeaseDuration, or without a TTL, naming the cap", async () => {
    await expect(ns.api.create(LEASES, lease(ns.name, 'too-long', 'capped', '3h'))).rejects.toThrow(
      'spec.ttl 3h is above what ClusterPool capped allows: spec.maxLeaseDuration 2h, counted from binding',
    );
    await expect(ns.api.create(LEASES, lease(ns.name, 'no-ttl', 'capped'))).rejects.toThrow(
      'spec.ttl is required: ClusterPool capped limits its leases to spec.maxLeaseDuration 2h',
    );
    // A pool without a cap takes any TTL the lease's schema allows.
    await ns.api.create(LEASES, lease(ns.name, 'uncapped', 'open', '8760h'), { dryRun: true });
    await expect(ns.api.get(LEASES, 'too-long', ns.name)).rejects.toMatchObject({ status: 404 });
  });

  it('raises the TTL of a bound lease up to the cap, refuses more and keeps the TTL it had', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'long-job', 'capped', '1h'));
    const first = await bound('long-job');
    const boundTime = Date.parse(first!.status!.boundTime!);

    const extended = await extendLease(ns.api, ns.name, 'long-job', '2h');
    expect(extended.expiresAt).toBe(
      new Date(boundTime + 120 * MINUTE).toISOString().replace('.000', ''),
    );
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'long-job',
      until: (l) => l?.status?.expiresAt === extended.expiresAt,
      description: 'the operator to move expiresAt to the extended deadline',
    });

    await expect(extendLease(ns.api, ns.name, 'long-job', '2h1m')).rejects.toThrow(
      'spec.ttl 2h1m is above what ClusterPool capped allows: spec.maxLeaseDuration 2h, counted from binding',
    );
    const kept = await ns.api.get<ClusterLease>(LEASES, 'long-job', ns.name);
    expect(kept.spec.ttl).toBe('2h');

    // A held lease (the Action's hold on failure) may go beyond by the pool's maxHoldDuration.
    await ns.api.patch(
      LEASES,
      { name: 'long-job', namespace: ns.name },
      {
        metadata: { labels: { [LABEL_LEASE_HELD]: 'true' } },
      },
    );
    await extendLease(ns.api, ns.name, 'long-job', '2h30m');
    await expect(extendLease(ns.api, ns.name, 'long-job', '2h31m')).rejects.toThrow(
      'spec.maxLeaseDuration 2h plus spec.maxHoldDuration 30m (the lease is held)',
    );
    // Changes that leave the TTL alone are never refused, also when the TTL is above the cap now.
    await ns.api.patch(
      LEASES,
      { name: 'long-job', namespace: ns.name },
      {
        metadata: { annotations: { note: 'debugging' } },
      },
    );
    await expect(
      ns.api.patch(
        LEASES,
        { name: 'long-job', namespace: ns.name },
        {
          metadata: { labels: { [LABEL_LEASE_HELD]: null } },
        },
      ),
    ).rejects.toThrow('spec.ttl 2h30m is above what ClusterPool capped allows');
    await expect(extendLease(ns.api, ns.name, 'missing', '1h')).rejects.toThrow(
      `ClusterLease ${ns.name}/missing not found`,
    );
  });

  it('says ExpiringSoon the configured time before the deadline, with a Warning Event, and not once extended', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'nearly-done', 'open', '2h'));
    const first = await bound('nearly-done');
    const boundTime = Date.parse(first!.status!.boundTime!);
    const warnAt = boundTime + 110 * MINUTE; // lease.expiryWarning=10m before the 2h deadline
    const expiring = (l: ClusterLease | undefined) =>
      findCondition(l?.status?.conditions, 'ExpiringSoon');

    clock.advance(warnAt - 30_000 - clock.now());
    expect(
      expiring(await ns.api.get<ClusterLease>(LEASES, 'nearly-done', ns.name)),
    ).toBeUndefined();

    clock.advance(warnAt - clock.now());
    const warned = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'nearly-done',
      until: (l) => expiring(l)?.status === 'True',
      description: 'ExpiringSoon to turn True',
    });
    const condition = expiring(warned)!;
    expect(condition).toMatchObject({ reason: 'TTLExpiring' });
    expect(condition.message).toContain(`expires at ${warned!.status!.expiresAt}`);
    // Not set before the warning time (whole seconds, as conditions write it).
    expect(Date.parse(condition.lastTransitionTime)).toBeGreaterThanOrEqual(warnAt - 1000);
    const events = await waitForList<Event>(ns.kubeConfig, {
      type: EVENTS,
      namespace: ns.name,
      until: (list) =>
        list.some((e) => e.reason === 'ExpiringSoon' && e.involvedObject.name === 'nearly-done'),
      description: 'the ExpiringSoon Warning Event',
    });
    expect(events.find((e) => e.reason === 'ExpiringSoon')).toMatchObject({ type: 'Warning' });

    await extendLease(ns.api, ns.name, 'nearly-done', '3h');
    const extended = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'nearly-done',
      until: (l) => expiring(l)?.status === 'False',
      description: 'ExpiringSoon to turn False after the extension',
    });
    expect(expiring(extended)).toMatchObject({ reason: 'TTLExtended' });
    expect(extended!.status!.expiresAt).toBe(
      new Date(boundTime + 180 * MINUTE).toISOString().replace('.000', ''),
    );
  });
});
