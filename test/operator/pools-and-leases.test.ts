import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { FINALIZER_LEASE_RELEASE } from '../../operator/api/labels.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import { EVENTS } from '../../client/api/core-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import {
  enableNamespace,
  releaseLeasesAndPools,
  hcpPool,
  lease,
  poolInstance,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { coreApi } from '../support/client-node-clients.js';

const world = useWorld({ namespace: 'pools' });
const { ns } = world;

const phase = (l: ClusterLease | undefined): string => l?.status?.phase ?? '';
const condition = (
  o: { status?: { conditions?: { type: string; reason: string; status: string }[] } } | undefined,
  type: string,
) => o?.status?.conditions?.find((c) => c.type === type);

type RecordedEvent = KubeObject & {
  type: string;
  reason: string;
  message: string;
  count?: number;
  involvedObject: { uid?: string };
};

/** The Warning Events of `reason` about one object (by UID), once there is at least one. */
async function warningsAbout(namespace: string, object: KubeObject, reason: string) {
  const mine = (items: RecordedEvent[]): RecordedEvent[] =>
    items.filter(
      (e) =>
        e.type === 'Warning' &&
        e.reason === reason &&
        e.involvedObject.uid === object.metadata?.uid,
    );
  return mine(
    await waitForList<RecordedEvent>(ns.kubeConfig, {
      type: EVENTS,
      namespace,
      until: (items) => mine(items).length > 0,
      description: `a Warning Event ${reason} about ${object.metadata?.name}`,
    }),
  );
}

/**
 * Another pass of the operator over an object that ends in the same wait: a change of its spec
 * that the wait does not depend on, done once the status has observed it.
 */
async function forcePass<T extends KubeObject & { status?: { observedGeneration?: number } }>(
  type: typeof LEASES | typeof POOLS,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<T> {
  const changed = await ns.api.patch<T>(type, { name, namespace }, { spec });
  return (await waitFor<T>(ns.kubeConfig, {
    type,
    namespace,
    name,
    until: (o) => (o?.status?.observedGeneration ?? 0) >= changed.metadata!.generation!,
    description: `${type.kind} ${name} to observe generation ${changed.metadata!.generation}`,
  }))!;
}

describe('pools and leases', () => {
  const managers: Manager[] = [];
  const start = async (namespace?: string): Promise<Manager> => {
    const manager = await world.startOperator({ namespace });
    managers.push(manager);
    return manager;
  };
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });
  afterAll(async () => {
    // Leases carry the release finalizer: release them with a manager running, so the namespace can go.
    const manager = await start();
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager.stop();
  });

  it('provisions exactly one instance for one pending lease, also across a manager restart, and binds it', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'solo'));
    const first = await start();
    await ns.api.create(LEASES, lease(ns.name, 'job-1', 'solo'));
    const [instance] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      until: (items) => items.length === 1,
      description: 'the pool to create an instance for the lease',
    });
    expect(instance!.metadata!.name).toBe('solo-0');
    expect(instance!.spec.poolRef?.name).toBe('solo');
    const pending = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => phase(l) === 'Pending',
    });
    expect(condition(pending, 'Ready')?.reason).toBe('WaitingForCapacity');
    expect(pending!.status!.queuePosition).toBe(1);

    // A new manager starts from scratch while the instance is still provisioning.
    await first.stop();
    await start();
    await settleInstance(ns.api, ns.name, 'solo-0');

    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => phase(l) === 'Bound',
    });
    expect(bound!.status).toMatchObject({
      instanceRef: { name: 'solo-0' },
      kubeconfigSecretRef: { name: 'job-1-kubeconfig' },
      topology: 'hcp',
      ocpVersion: '4.16.10',
      apiEndpoint: 'https://api.solo-0.example:6443',
    });
    expect(bound!.status!.queuePosition).toBeUndefined();
    expect(condition(bound, 'Ready')).toMatchObject({ status: 'True', reason: 'InstanceBound' });
    // The release finalizer follows the binding.
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => !!l?.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE),
      description: 'the bound lease to carry the release finalizer',
    });
    const secret = await coreApi(ns).readNamespacedSecret({
      name: 'job-1-kubeconfig',
      namespace: ns.name,
    });
    expect(Buffer.from(secret.data!.kubeconfig!, 'base64').toString()).toContain(
      'https://api.solo-0.example:6443',
    );

    const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'solo',
      until: (p) => p?.status?.leasedInstances === 1,
    });
    expect(pool!.status).toMatchObject({
      totalInstances: 1,
      availableInstances: 0,
      leasedInstances: 1,
    });
    const instances = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
    expect(instances.items.map((i) => [i.metadata!.name, i.status?.leaseRef?.name])).toEqual([
      ['solo-0', 'job-1'],
    ]);
  });

  it('keeps a lease whose pool does not exist yet waiting, saying so, and binds it once the pool is there', async () => {
    await enableNamespace(ns.api, ns.name);
    await start();
    await ns.api.create(LEASES, lease(ns.name, 'early', 'late'));
    const waiting = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'early',
      until: (l) => condition(l, 'Ready')?.reason === 'PoolNotFound',
    });
    expect(phase(waiting)).toBe('Pending');
    expect(condition(waiting, 'Ready')).toMatchObject({
      status: 'False',
      message: `ClusterPool "late" does not exist in namespace "${ns.name}"; create it and the lease binds, or delete the lease`,
    });
    // A person must act: one Warning Event, not repeated by later passes, nor by a restarted operator.
    await warningsAbout(ns.name, waiting!, 'PoolNotFound');
    await forcePass(LEASES, ns.name, 'early', { requestedBy: 'pass 2' });
    await forcePass(LEASES, ns.name, 'early', { requestedBy: 'pass 3' });
    await managers.pop()!.stop();
    await start();
    await forcePass(LEASES, ns.name, 'early', { requestedBy: 'pass 4' });
    const stillWaiting = await forcePass<ClusterLease>(LEASES, ns.name, 'early', {
      requestedBy: 'pass 5',
    });
    expect(condition(stillWaiting, 'Ready')?.reason).toBe('PoolNotFound');
    expect(
      (await warningsAbout(ns.name, waiting!, 'PoolNotFound')).map((e) => [e.reason, e.count ?? 1]),
    ).toEqual([['PoolNotFound', 1]]);

    await ns.api.create(POOLS, hcpPool(ns.name, 'late', { maxSize: 1 }));
    const [instance] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=late',
      until: (items) => items.length === 1,
      description: 'the instance the pool makes for the waiting lease',
    });
    await settleInstance(ns.api, ns.name, instance!.metadata!.name!);
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'early',
      until: (l) => phase(l) === 'Bound',
    });
    expect(bound!.status?.instanceRef?.name).toBe('late-0');
  });

  it("skips an instance name held by an object that is not the pool's, and says so", async () => {
    await enableNamespace(ns.api, ns.name);
    // A ClusterInstance named like the pool's next one, but not the pool's (no pool label).
    const squatter = poolInstance(ns.name, 'taken', 'taken-0');
    delete squatter.metadata!.labels;
    delete squatter.spec.poolRef;
    await ns.api.create(INSTANCES, squatter);
    await ns.api.create(POOLS, hcpPool(ns.name, 'taken', { maxSize: 2 }));
    await start();
    await ns.api.create(LEASES, lease(ns.name, 'taken-job', 'taken'));
    const [created] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=taken',
      until: (items) => items.length === 1,
      description: 'the instance for the lease taken-job',
    });
    expect(created!.metadata!.name).toBe('taken-1');
    const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'taken',
      until: (p) => condition(p, 'NamesAvailable')?.status === 'False',
    });
    expect(condition(pool, 'NamesAvailable')).toMatchObject({
      reason: 'NameTaken',
      message:
        "ClusterInstance taken-0 is not this pool's (it was not made by ClusterPool taken); the pool skips that name, names its instances otherwise, and neither counts nor binds it",
    });
    await settleInstance(ns.api, ns.name, 'taken-1');
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'taken-job',
      until: (l) => phase(l) === 'Bound',
    });
    expect(bound!.status?.instanceRef?.name).toBe('taken-1');
  });

  it("fails a lease whose kubeconfig Secret name is an instance's, before claiming anything", async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'named', { maxSize: 2 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'named', 'named-0'));
    await settleInstance(ns.api, ns.name, 'named-0');
    await start();
    // The instance published named-0-kubeconfig; a lease named named-0 would copy into it.
    await ns.api.create(LEASES, lease(ns.name, 'named-0', 'named'));
    const failed = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'named-0',
      until: (l) => phase(l) === 'Failed',
    });
    expect(condition(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'KubeconfigSecretConflict',
      message: `Secret ${ns.name}/named-0-kubeconfig, where this lease's kubeconfig would go, is ClusterInstance named-0's; recreate the lease under another name`,
    });
    const instance = await ns.api.get<ClusterInstance>(INSTANCES, 'named-0', ns.name);
    expect(instance.status?.leaseRef).toBeUndefined();
  });

  it('fails a lease whose kubeconfig Secret name is taken by a Secret the operator does not cache', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'plain', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'plain', 'plain-0'));
    await settleInstance(ns.api, ns.name, 'plain-0');
    // Someone's own Secret, without the labels of the Secrets the operator caches.
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'mine-kubeconfig', namespace: ns.name },
      data: { note: Buffer.from('not a lease kubeconfig').toString('base64') },
    } as KubeObject);
    await start();
    await ns.api.create(LEASES, lease(ns.name, 'mine', 'plain'));
    const failed = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'mine',
      until: (l) => phase(l) === 'Failed',
    });
    expect(condition(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'KubeconfigSecretConflict',
      message: `Secret ${ns.name}/mine-kubeconfig, where this lease's kubeconfig would go, is another object; recreate the lease under another name`,
    });
    const instance = await ns.api.get<ClusterInstance>(INSTANCES, 'plain-0', ns.name);
    expect(instance.status?.leaseRef).toBeUndefined();
    const untouched = await ns.api.get<KubeObject & { data?: Record<string, string> }>(
      SECRETS,
      'mine-kubeconfig',
      ns.name,
    );
    expect(Object.keys(untouched.data ?? {})).toEqual(['note']);
  });

  it('does not name a new instance like a lease, whose kubeconfig Secret it would take', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'spare', { maxSize: 1 }));
    await ns.api.create(LEASES, lease(ns.name, 'spare-0', 'spare'));
    await start();
    const [created] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=spare',
      until: (items) => items.length === 1,
      description: 'the instance for the lease spare-0',
    });
    expect(created!.metadata!.name).toBe('spare-1');
    await settleInstance(ns.api, ns.name, 'spare-1');
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'spare-0',
      until: (l) => phase(l) === 'Bound',
    });
    expect(bound!.status?.instanceRef?.name).toBe('spare-1');
  });

  it('replaces a failed instance, and the pool says why provisioning keeps failing', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'flaky', { warmSpares: 1, maxSize: 1 }));
    await start();
    const [first] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=flaky',
      until: (items) => items.length === 1,
      description: 'the first instance of pool flaky',
    });
    await settleInstance(ns.api, ns.name, first!.metadata!.name!, 'Failed');

    const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'flaky',
      until: (p) => condition(p, 'ProvisioningHealthy')?.reason === 'InstancesFailing',
    });
    expect(condition(pool, 'ProvisioningHealthy')).toMatchObject({ status: 'False' });
    expect((condition(pool, 'ProvisioningHealthy') as { message?: string }).message).toContain(
      'DataVolume import failed: 404 from the mirror',
    );
    const [replacement] = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=flaky',
      // A new instance, once the pool has granted it provisioning (right after its create).
      until: (items) =>
        items.length === 1 &&
        items[0]!.metadata!.uid !== first!.metadata!.uid &&
        !!items[0]!.status?.provisioning,
      description: 'a replacement for the failed instance',
    });
    expect(replacement!.status).toMatchObject({
      phase: 'Provisioning',
      provisioning: { pool: 'flaky' },
    });
  });

  it('deletes the instances of a deleted pool', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'doomed', { warmSpares: 2, maxSize: 2 }));
    await start();
    await waitForList(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=doomed',
      until: (items) => items.length === 2,
      description: 'two warm spares',
    });
    await ns.api.delete(POOLS, 'doomed', ns.name);
    const left = await waitForList(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      labelSelector: 'opdev.io/pool=doomed',
      until: (items) => items.length === 0,
      description: 'the garbage collector to delete the pool instances',
    });
    expect(left).toEqual([]);
  });

  it('deletes an instance claimed by a lease that no longer exists, and keeps a live claim', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'orphans', { maxSize: 2 }));
    const live = await ns.api.create(LEASES, lease(ns.name, 'holder', 'no-pool-needed'));
    const claimed = { orphan: { name: 'ghost', uid: '6a1f0c4e-0000-4000-8000-000000000001' } };
    const liveClaim = { name: 'holder', uid: live.metadata!.uid! };
    for (const [name, leaseRef] of [
      ['orphans-0', claimed.orphan],
      ['orphans-1', liveClaim],
    ] as const) {
      await createPoolInstance(ns.api, poolInstance(ns.name, 'orphans', name));
      const ready = await settleInstance(ns.api, ns.name, name);
      await ns.api.updateStatus(INSTANCES, { ...ready, status: { ...ready.status, leaseRef } });
    }
    await start();
    await waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'orphans-0',
      until: (instance) => instance === undefined,
      description: 'the instance claimed by a lease that does not exist to be deleted',
    });
    const kept = await ns.api.get<ClusterInstance>(INSTANCES, 'orphans-1', ns.name);
    expect(kept.metadata?.deletionTimestamp).toBeUndefined();
    expect(kept.status?.leaseRef).toEqual(liveClaim);
  });

  it('releases the instance of a lease deleted the moment it is Bound, finalizer or not', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'hasty', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'hasty', 'hasty-0'));
    const ready = await settleInstance(ns.api, ns.name, 'hasty-0');
    await start();
    await ns.api.create(LEASES, lease(ns.name, 'hasty-job', 'hasty'));
    // The delete races the release finalizer, which is written just after the binding.
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'hasty-job',
      until: (l) => phase(l) === 'Bound',
    });
    await ns.api.delete(LEASES, 'hasty-job', ns.name);
    await waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'hasty-0',
      until: (instance) => instance === undefined || instance.metadata?.uid !== ready.metadata?.uid,
      description: 'the instance of the deleted lease to be deleted',
    });
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'hasty-job',
      until: (l) => l === undefined,
    });
  });

  it('provisions nothing in a namespace that has not opted in', async () => {
    const optOut = `${ns.name}-optout`;
    // In the world's scope, as its operators serve only that, but not opted in.
    await coreApi(ns).createNamespace({
      body: { metadata: { name: optOut, labels: { ...world.scopeLabels } } },
    });
    try {
      await ns.api.create(POOLS, hcpPool(optOut, 'idle', { warmSpares: 1 }));
      await start(optOut);
      const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
        type: POOLS,
        namespace: optOut,
        name: 'idle',
        until: (p) => condition(p, 'ProvisioningAllowed') !== undefined,
      });
      expect(condition(pool, 'ProvisioningAllowed')).toMatchObject({
        status: 'False',
        reason: 'NamespaceDisabled',
      });
      expect(pool!.status?.totalInstances).toBe(0);
      expect((await ns.api.list(INSTANCES, { namespace: optOut })).items).toEqual([]);
      // One Warning Event says what to do, however many passes (and operators) find it so.
      await warningsAbout(optOut, pool!, 'NamespaceDisabled');
      await forcePass(POOLS, optOut, 'idle', { maxSize: 6 });
      await managers.pop()!.stop();
      await start(optOut);
      await forcePass(POOLS, optOut, 'idle', { maxSize: 7 });
      await forcePass(POOLS, optOut, 'idle', { maxSize: 8 });
      const warnings = await warningsAbout(optOut, pool!, 'NamespaceDisabled');
      expect(warnings.map((e) => [e.reason, e.count ?? 1, e.message])).toEqual([
        [
          'NamespaceDisabled',
          1,
          'New provisioning requires namespace label guestcluster.opdev.io/enabled="true"',
        ],
      ]);
    } finally {
      await coreApi(ns).deleteNamespace({ name: optOut });
    }
  });
});
