import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { FINALIZER_POOL_PROTECTION } from '../../operator/api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import { isNotFound } from '../../client/kube/api-error.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { eventFor } from '../support/events.js';
import { kubectl } from '../support/kubectl.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import {
  enableNamespace,
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'lost' });
const { ns } = world;
const MINUTE = 60_000;
/** Stands in for the instance controller's cleanup finalizer: a deleted instance stays visible. */
const HOLD = 'test.opdev.io/hold';

type Conditioned = {
  status?: { conditions?: { type: string; reason: string; message: string; status: string }[] };
};
const condition = (object: Conditioned | undefined, type: string) =>
  object?.status?.conditions?.find((c) => c.type === type);
// Phases as plain strings: compared with values of the phase union that the old API lacked.
const phase = (l: ClusterLease | undefined): string => l?.status?.phase ?? '';

function leaseIn(
  name: string,
  until: (l: ClusterLease | undefined) => boolean,
  description: string,
) {
  return waitFor<ClusterLease>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name,
    until,
    description,
  });
}

/** A pool whose controller made `ready` instances (owned by it, as in production), all Ready. */
async function poolWithInstances(name: string, ready: number): Promise<string[]> {
  await ns.api.create(POOLS, hcpPool(ns.name, name, { warmSpares: ready, maxSize: ready + 1 }));
  const created = await waitForList<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace: ns.name,
    labelSelector: `opdev.io/pool=${name}`,
    until: (items) => items.length === ready,
    description: `${ready} instances of pool ${name}`,
  });
  const names = created.map((i) => i.metadata!.name!).sort();
  for (const instance of names) await settleInstance(ns.api, ns.name, instance);
  // A pool with instances is protected: deleted, it will wait for its leases.
  await waitFor<ClusterPool>(ns.kubeConfig, {
    type: POOLS,
    namespace: ns.name,
    name,
    until: (p) => !!p?.metadata?.finalizers?.includes(FINALIZER_POOL_PROTECTION),
    description: `pool ${name} to carry the pool-protection finalizer`,
  });
  return names;
}

/** What the instance controller writes when the guest API stops answering, or answers again. */
async function setReady(name: string, ready: boolean, at: string): Promise<void> {
  const instance = await ns.api.get<ClusterInstance>(INSTANCES, name, ns.name);
  await ns.api.updateStatus(INSTANCES, {
    ...instance,
    status: {
      ...instance.status,
      phase: ready ? 'Ready' : 'Provisioning',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'Ready' : 'APIEndpointUnavailable',
          message: ready ? 'guest API answers' : 'the guest API does not answer',
          lastTransitionTime: at,
        },
      ],
    },
  });
}

async function bind(leaseName: string, pool: string): Promise<ClusterLease> {
  await ns.api.create(LEASES, lease(ns.name, leaseName, pool));
  return (await leaseIn(leaseName, (l) => phase(l) === 'Bound', `${leaseName} to be Bound`))!;
}

async function absent(type: typeof INSTANCES | typeof POOLS, name: string): Promise<void> {
  await waitFor(ns.kubeConfig, {
    type,
    namespace: ns.name,
    name,
    until: (o) => o === undefined,
    description: `${type.kind} ${name} to be gone`,
  });
}

describe('a bound lease and the instance it holds', () => {
  const managers: Manager[] = [];
  const start = async (clock?: TestClock): Promise<Manager> => {
    const manager = await world.startOperator({ clock });
    managers.push(manager);
    return manager;
  };
  afterEach(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });
  afterAll(async () => {
    // A failed test may have left the stand-in finalizer on an instance.
    const instances = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
    for (const held of instances.items.filter((i) => i.metadata?.finalizers?.includes(HOLD)))
      await ns.api.patch(
        INSTANCES,
        { name: held.metadata!.name!, namespace: ns.name },
        { metadata: { finalizers: null } },
      );
  });

  it.each([
    ['the namespace opted in', true],
    ['the namespace opted out', false],
  ])(
    'survives the deletion of its pool (%s); the pool waits for the lease, saying so',
    async (_case, optedIn) => {
      await enableNamespace(ns.api, ns.name);
      const pool = optedIn ? 'keep' : 'optout';
      await start();
      const [first, second] = await poolWithInstances(pool, 2);
      const bound = await bind(`${pool}-job`, pool);
      const held = bound.status!.instanceRef!.name!;
      const spare = held === first ? second! : first!;
      if (!optedIn)
        await ns.api.patch(
          NAMESPACES,
          { name: ns.name },
          { metadata: { labels: { 'guestcluster.opdev.io/enabled': null } } },
        );

      await ns.api.delete(POOLS, pool, ns.name);
      const waiting = await waitFor<ClusterPool>(ns.kubeConfig, {
        type: POOLS,
        namespace: ns.name,
        name: pool,
        until: (p) => condition(p, 'Terminating')?.reason === 'WaitingForLeases',
        description: `pool ${pool} to wait for its lease`,
      });
      expect(condition(waiting, 'Terminating')!.message).toContain(
        `it waits for ClusterLease ${pool}-job (ClusterInstance ${held})`,
      );
      await absent(INSTANCES, spare);
      const kept = await ns.api.get<ClusterInstance>(INSTANCES, held, ns.name);
      expect(kept.metadata?.deletionTimestamp).toBeUndefined();
      expect(kept.status?.leaseRef?.name).toBe(`${pool}-job`);
      const still = await ns.api.get<ClusterLease>(LEASES, `${pool}-job`, ns.name);
      expect(phase(still)).toBe('Bound');
      expect(condition(still, 'Ready')?.status).toBe('True');

      // Released, the instance goes, and then the pool.
      await ns.api.delete(LEASES, `${pool}-job`, ns.name);
      await absent(INSTANCES, held);
      await absent(POOLS, pool);
    },
  );

  it('turns Lost when its instance is deleted, never binds again, and leaves a new instance of that name alone', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'gone', { maxSize: 2 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'gone', 'gone-0'));
    await settleInstance(ns.api, ns.name, 'gone-0');
    await start();
    const bound = await bind('gone-job', 'gone');
    expect(bound.status?.instanceRef).toEqual({
      name: 'gone-0',
      uid: (await ns.api.get<ClusterInstance>(INSTANCES, 'gone-0', ns.name)).metadata!.uid,
    });

    await ns.api.delete(INSTANCES, 'gone-0', ns.name);
    const lost = await leaseIn('gone-job', (l) => phase(l) === 'Lost', 'the lease to be Lost');
    for (const type of ['Ready', 'Bound'])
      expect(condition(lost, type)).toMatchObject({
        status: 'False',
        reason: 'InstanceLost',
        message: 'ClusterInstance gone-0 no longer exists',
      });
    const event = await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterLease', name: 'gone-job' },
      'InstanceLost',
    );
    expect(event).toMatchObject({
      type: 'Warning',
      message: 'ClusterInstance gone-0 no longer exists; the lease will not bind again, delete it',
    });
    // A lost lease holds no credentials any more.
    expect(lost!.status?.kubeconfigSecretRef).toBeUndefined();
    await expect(ns.api.get(SECRETS, 'gone-job-kubeconfig', ns.name)).rejects.toMatchObject({
      status: 404,
    });
    const { stdout } = await kubectl(['get', 'clusterleases', '-n', ns.name, 'gone-job']);
    expect(stdout.split('\n')[1]).toMatch(/^gone-job\s+Lost\s+gone\s+gone-0\s/);

    // A new instance under the old name is the pool's to hand out, not the lost lease's.
    await createPoolInstance(ns.api, poolInstance(ns.name, 'gone', 'gone-0'));
    const replacement = await settleInstance(ns.api, ns.name, 'gone-0');
    const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'gone',
      until: (p) => p?.status?.availableInstances === 1,
      description: 'the new gone-0 to count as available',
    });
    expect(pool!.status?.leasedInstances).toBe(0);
    const stillLost = await ns.api.get<ClusterLease>(LEASES, 'gone-job', ns.name);
    expect(phase(stillLost)).toBe('Lost');
    expect(condition(stillLost, 'Ready')?.message).toBe('ClusterInstance gone-0 no longer exists');
    // Released, the lost lease deletes nothing of someone else's.
    await ns.api.delete(LEASES, 'gone-job', ns.name);
    await waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'gone-job',
      until: (l) => l === undefined,
    });
    const survivor = await ns.api.get<ClusterInstance>(INSTANCES, 'gone-0', ns.name);
    expect(survivor.metadata?.uid).toBe(replacement.metadata!.uid);
    expect(survivor.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('turns Lost when its instance starts being deleted', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'dying', { maxSize: 1 }));
    // A finalizer of its own keeps the deleted instance around, as the instance controller's does.
    const held = poolInstance(ns.name, 'dying', 'dying-0');
    held.metadata!.finalizers = [HOLD];
    await createPoolInstance(ns.api, held);
    await settleInstance(ns.api, ns.name, 'dying-0');
    await start();
    await bind('dying-job', 'dying');
    await ns.api.delete(INSTANCES, 'dying-0', ns.name);
    const lost = await leaseIn('dying-job', (l) => phase(l) === 'Lost', 'the lease to be Lost');
    expect(condition(lost, 'Ready')).toMatchObject({ reason: 'InstanceLost' });
    expect(condition(lost, 'Ready')!.message).toMatch(
      /^ClusterInstance dying-0 is being deleted \(since .+\)$/,
    );
    await ns.api
      .patch(INSTANCES, { name: 'dying-0', namespace: ns.name }, { metadata: { finalizers: null } })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  });

  it('says NotReady once its instance has not been Ready for longer than the grace, and Bound again when it is', async () => {
    const clock = new TestClock();
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'flaky', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'flaky', 'flaky-0'));
    await settleInstance(ns.api, ns.name, 'flaky-0');
    await start(clock);
    await bind('flaky-job', 'flaky');

    const since = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await setReady('flaky-0', false, since);
    // Within the grace the lease stays Bound; past it, it says so.
    const within = await leaseIn('flaky-job', (l) => !!l, 'the lease');
    expect(phase(within)).toBe('Bound');
    clock.advance(3 * MINUTE + 1000);
    const notReady = await leaseIn(
      'flaky-job',
      (l) => phase(l) === 'NotReady',
      'the lease to be NotReady',
    );
    expect(condition(notReady, 'Bound')).toMatchObject({ status: 'True', reason: 'InstanceBound' });
    expect(condition(notReady, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InstanceNotReady',
    });
    expect(condition(notReady, 'Ready')!.message).toBe(
      `ClusterInstance flaky-0 has not been Ready since ${since.replace('Z', '.000Z')} (APIEndpointUnavailable: the guest API does not answer)`,
    );
    expect(
      (
        await eventFor(
          ns.kubeConfig,
          ns.name,
          { kind: 'ClusterLease', name: 'flaky-job' },
          'InstanceNotReady',
        )
      ).type,
    ).toBe('Warning');

    await setReady('flaky-0', true, new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const back = await leaseIn(
      'flaky-job',
      (l) => phase(l) === 'Bound',
      'the lease to be Bound again',
    );
    expect(condition(back, 'Ready')).toMatchObject({ status: 'True', reason: 'InstanceBound' });
    expect(back!.status?.instanceRef?.name).toBe('flaky-0');
  });
});
