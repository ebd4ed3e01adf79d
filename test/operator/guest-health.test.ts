import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { eventFor } from '../support/events.js';
import {
  hcpPool,
  lease,
  releaseLeasesAndPools,
  instancesTornDown,
} from '../support/fixtures/pool-fixtures.js';
import {
  createCrcPrerequisites,
  manualCrcTemplate,
} from '../support/fixtures/crc-prerequisites.js';
import { conditionOf, waitForInstance, waitForLease } from '../support/fixtures/instance-waits.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { TEST_INSTANCE_TIMINGS } from '../support/test-timings.js';
import { DEFAULT_TIMINGS } from '../../operator/timings.js';

/*
 * Readiness gates before hand-out (docs/reference/instances.md#guest-health): the guest health
 * controller checks what a CI job needs of a Ready guest, a lease binds only a guest that passed,
 * and a spare that keeps failing is replaced. The guests are the simulated platform's: a crc guest
 * with an API server of its own, and the hosted guest behind every HostedCluster.
 */

const world = useWorld({
  namespace: 'guest-health',
  enabled: true,
  platform: { crc: {}, hcp: true },
});
const { ns } = world;
const MINUTE = 60_000;
/** A crc guest boots, is finished by the real agent and answers through the router. */
const CRC_READY_MS = 240_000;

const instanceIn = (
  name: string,
  until: (i: ClusterInstance | undefined) => boolean,
  description: string,
  timeoutMs?: number,
): Promise<ClusterInstance> => waitForInstance(ns, name, until, description, timeoutMs);

const leaseIn = (
  name: string,
  until: (l: ClusterLease | undefined) => boolean,
  description: string,
  timeoutMs?: number,
): Promise<ClusterLease> => waitForLease(ns, name, until, description, timeoutMs);

const healthy = (i: ClusterInstance | undefined): boolean =>
  conditionOf(i, 'GuestHealthy')?.status === 'True';
const unhealthy = (i: ClusterInstance | undefined): boolean =>
  conditionOf(i, 'GuestHealthy')?.status === 'False';

describe('readiness gates before hand-out', () => {
  const managers: Manager[] = [];
  let clock = new TestClock();
  const start = async (): Promise<void> => {
    clock = new TestClock();
    // Guests checked every second: a broken one is noticed at once.
    const instance = {
      ...DEFAULT_TIMINGS.instance,
      ...TEST_INSTANCE_TIMINGS,
      guestHealthRecheckMs: 1000,
    };
    managers.push(
      await world.startOperator({ clock, config: { timings: { ...DEFAULT_TIMINGS, instance } } }),
    );
  };

  let sshKeySecret: string;
  beforeAll(async () => {
    ({ sshKeySecret } = await createCrcPrerequisites(world.platform, ns.api, ns.name));
  });

  afterEach(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await instancesTornDown(ns.kubeConfig, ns.name);
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });

  it('holds back a crc spare whose ClusterOperator turns Degraded and replaces it after the grace; a leased one turns its lease NotReady', async () => {
    await start();
    const pool: ClusterPool = {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: 'crc', namespace: ns.name },
      spec: {
        type: 'crc',
        maxSize: 2,
        minSize: 0,
        warmSpares: 1,
        template: manualCrcTemplate(sshKeySecret),
      },
    };
    await ns.api.create(POOLS, pool);
    const first = await instanceIn('crc-0', healthy, 'Ready and healthy', CRC_READY_MS);
    expect(conditionOf(first, 'GuestHealthy')).toMatchObject({
      reason: 'GuestHealthy',
      message:
        'every readiness gate passes (readyz, ClusterOperators, nodes, kubelet CSRs, certificates)',
    });
    expect(Date.parse(first.status!.guestHealth!.certificatesNotAfter!)).toBeGreaterThan(
      Date.now() + 24 * 60 * MINUTE,
    );
    // A lease takes it, and the pool makes the next spare.
    await ns.api.create(LEASES, lease(ns.name, 'job', 'crc', '1h'));
    await leaseIn('job', (l) => l?.status?.phase === 'Bound', 'bound');
    const spare = await instanceIn('crc-1', healthy, 'Ready and healthy', CRC_READY_MS);

    // Both guests' dns operator reports Degraded: the next checks say so, in the guest's words.
    const degrade = (instance: ClusterInstance, status: 'True' | 'False'): Promise<void> =>
      world.platform.guests
        .guestOf(instance.status!.crc!.vmiUID!)!
        .api!.setOperatorCondition('dns', {
          type: 'Degraded',
          status,
          reason: status === 'True' ? 'DNSDegraded' : 'AsExpected',
          message: status === 'True' ? 'DNS default is degraded' : 'DNS default is available',
        });
    await Promise.all([degrade(first, 'True'), degrade(spare, 'True')]);
    const guestWords =
      'clusteroperators: ClusterOperator dns is Degraded: Degraded=True (DNSDegraded): DNS default is degraded';
    const broken = await instanceIn('crc-1', unhealthy, 'failing a readiness gate');
    expect(conditionOf(broken, 'GuestHealthy')).toMatchObject({
      reason: 'GuestUnhealthy',
      message: guestWords,
    });
    expect(broken.status!.phase).toBe('Ready');
    await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterInstance', name: 'crc-1' },
      'GuestUnhealthy',
    );
    const failing = await instanceIn('crc-0', unhealthy, 'failing a gate while leased');

    // A new lease does not get the spare, and says which gate it waits for.
    await ns.api.create(LEASES, lease(ns.name, 'next', 'crc', '1h'));
    const waiting = await leaseIn(
      'next',
      (l) => conditionOf(l, 'Ready')?.reason === 'WaitingForHealthyInstance',
      'waiting for a healthy instance',
    );
    expect(conditionOf(waiting, 'Ready')!.message).toBe(
      `no Ready, unclaimed ClusterInstance in pool "crc" passes its readiness gates; ClusterInstance crc-1 fails a readiness gate: ${guestWords}`,
    );

    // The bound lease tells the truth once its grace has passed, and is Bound again when the
    // gate passes.
    expect((await ns.api.get<ClusterLease>(LEASES, 'job', ns.name)).status!.phase).toBe('Bound');
    clock.advance(DEFAULT_TIMINGS.lease.notReadyGraceMs);
    const notReady = await leaseIn('job', (l) => l?.status?.phase === 'NotReady', 'NotReady');
    const since = conditionOf(failing, 'GuestHealthy')!.lastTransitionTime!;
    expect(conditionOf(notReady, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InstanceNotReady',
      message: `ClusterInstance crc-0 has failed a readiness gate since ${new Date(since).toISOString()} (GuestUnhealthy: ${guestWords})`,
    });
    await degrade(first, 'False');
    await leaseIn('job', (l) => l?.status?.phase === 'Bound', 'Bound again');
    await eventFor(ns.kubeConfig, ns.name, { kind: 'ClusterLease', name: 'job' }, 'InstanceReady');

    // Past its grace the pool replaces the spare; the leased guest is never replaced.
    clock.advance(
      DEFAULT_TIMINGS.pool.unhealthySpareGraceMs - DEFAULT_TIMINGS.lease.notReadyGraceMs,
    );
    const replaced = await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterInstance', name: 'crc-1' },
      'UnhealthySpareReplaced',
    );
    expect(replaced.message).toContain('ClusterOperator dns is Degraded');
    // Its successor is a new guest (booting one is crc-instance.test.ts's part), and the new
    // lease still waits: it never got the broken one.
    await instanceIn('crc-1', (i) => !!i && i.metadata!.uid !== spare.metadata!.uid, 'replaced');
    const still = await ns.api.get<ClusterLease>(LEASES, 'next', ns.name);
    expect(still.status?.instanceRef?.name).toBeFalsy();
    const kept = await ns.api.get<ClusterInstance>(INSTANCES, 'crc-0', ns.name);
    expect(kept.metadata!.uid).toBe(first.metadata!.uid);
  });

  it('replaces an hcp spare whose guest stops answering, and refuses a lease its certificates would not outlive', async () => {
    await createPullSecret(ns.api, ns.name).catch(() => undefined);
    await start();
    await ns.api.create(POOLS, hcpPool(ns.name, 'hcp', { maxSize: 1, warmSpares: 1 }));
    const spare = await instanceIn('hcp-0', healthy, 'Ready and healthy');
    const notAfter = spare.status!.guestHealth!.certificatesNotAfter!;

    // A lease longer than the guest's certificates last is not handed this guest.
    await ns.api.create(LEASES, lease(ns.name, 'long', 'hcp', '8000h'));
    const refused = await leaseIn(
      'long',
      (l) => conditionOf(l, 'Ready')?.reason === 'WaitingForHealthyInstance',
      'refused by the certificates gate',
    );
    expect(conditionOf(refused, 'Ready')!.message).toBe(
      `no Ready, unclaimed ClusterInstance in pool "hcp" passes its readiness gates; ClusterInstance hcp-0 has certificates that expire at ${notAfter}, before 8000h0m0s of lease and a 1h0m0s margin`,
    );
    await ns.api.delete(LEASES, 'long', ns.name);

    world.platform.silentGuests.add('hcp-0');
    try {
      // Whichever looks first: the guest health check, or the instance's own endpoint check.
      await instanceIn(
        'hcp-0',
        (i) => unhealthy(i) || i?.status?.phase === 'Provisioning',
        'its guest no longer answering',
      );
      clock.advance(5 * MINUTE);
      const replaced = await eventFor(
        ns.kubeConfig,
        ns.name,
        { kind: 'ClusterInstance', name: 'hcp-0' },
        'UnhealthySpareReplaced',
      );
      expect(replaced.message).toMatch(
        /unhealthy for longer than 5m0s \(pool.unhealthySpareGrace\): .*(does not answer|socket)/,
      );
    } finally {
      world.platform.silentGuests.delete('hcp-0');
    }
    const successor = await instanceIn(
      'hcp-0',
      (i) => !!i && i.metadata!.uid !== spare.metadata!.uid && healthy(i),
      'replaced by a healthy spare',
    );
    expect(successor.status!.phase).toBe('Ready');
  });
});
