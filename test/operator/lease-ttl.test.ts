import { EVENTS } from '../../client/api/core-resources.js';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import {
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  stampGuestHealth,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'ttl', enabled: true });
const { ns } = world;
type Event = KubeObject & { reason: string; type: string; message: string };
const MINUTE = 60_000;

describe('lease TTL', () => {
  let manager: Manager;
  // One clock for the file's operator: the second test runs on it, past the first one's deadline.
  const clock = new TestClock();
  afterAll(async () => {
    // Leases carry the release finalizer: release them with the manager running.
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it('warns before the deadline and releases the lease and its instance at the deadline', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'ttl', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'ttl', 'ttl-0'));
    await settleInstance(ns.api, ns.name, 'ttl-0');
    manager = await world.startOperator({ clock });

    await ns.api.create(LEASES, lease(ns.name, 'short', 'ttl', '1h'));
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'short',
      until: (l) => l?.status?.phase === 'Bound',
    });
    const boundTime = Date.parse(bound!.status!.boundTime!);
    expect(Date.parse(bound!.status!.expiresAt!)).toBe(boundTime + 60 * MINUTE);

    // Five minutes before the deadline: a Warning Event, and the lease is still there.
    clock.advance(boundTime + 56 * MINUTE - clock.now());
    const [warning] = await waitForList<Event>(ns.kubeConfig, {
      type: EVENTS,
      namespace: ns.name,
      until: (events) => events.some((e) => e.reason === 'ExpiringSoon'),
      description: 'the ExpiringSoon event',
    }).then((events) => events.filter((e) => e.reason === 'ExpiringSoon'));
    expect(warning).toMatchObject({ type: 'Warning' });
    expect(warning!.message).toContain(
      `expires at ${bound!.status!.expiresAt!.replace('Z', '.000Z')}`,
    );
    expect(
      (await ns.api.get<ClusterLease>(LEASES, 'short', ns.name)).metadata?.deletionTimestamp,
    ).toBeUndefined();

    // At the deadline: the lease goes, and its instance with it.
    clock.advance(boundTime + 60 * MINUTE - clock.now());
    await waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'short',
      until: (l) => l === undefined,
      description: 'the expired lease to be deleted',
    });
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'ttl-0',
      until: (i) => i === undefined,
      description: 'the released instance to be deleted',
    });
  });

  it('keeps status.expiresAt at boundTime + spec.ttl when the TTL changes after binding', async () => {
    // The lease first, and the instance the pool makes for it: the clock is past the first
    // test's deadline, so a Ready instance that no lease asks for yet would look idle for an hour
    // and be scaled down before the lease could bind it.
    await ns.api.create(POOLS, hcpPool(ns.name, 'change', { maxSize: 1 }));
    await ns.api.create(LEASES, lease(ns.name, 'longer', 'change', '1h'));
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'change-0',
      until: (instance) => instance !== undefined,
      description: 'the pool to make an instance for the lease',
    });
    await settleInstance(ns.api, ns.name, 'change-0');
    // Checked at the operator's time: its clock is past the first test's deadline.
    await stampGuestHealth(ns.api, ns.name, 'change-0', clock.now());
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'longer',
      until: (l) => l?.status?.phase === 'Bound',
    });
    const boundTime = Date.parse(bound!.status!.boundTime!);
    const expires = (l: ClusterLease | undefined): number => Date.parse(l?.status?.expiresAt ?? '');

    for (const [ttl, hours] of [
      ['720h', 720],
      ['90m', 1.5],
    ] as const) {
      await ns.api.patch(LEASES, { name: 'longer', namespace: ns.name }, { spec: { ttl } });
      const updated = await waitFor<ClusterLease>(ns.kubeConfig, {
        type: LEASES,
        namespace: ns.name,
        name: 'longer',
        until: (l) => expires(l) === boundTime + hours * 60 * MINUTE,
        description: `expiresAt to follow spec.ttl ${ttl}`,
      });
      expect(updated!.status!.boundTime).toBe(bound!.status!.boundTime);
    }
    await ns.api.patch(LEASES, { name: 'longer', namespace: ns.name }, { spec: { ttl: '0' } });
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'longer',
      until: (l) => !!l && l.status?.expiresAt === undefined,
      description: 'expiresAt to go with the TTL',
    });
  });
});
