import { findCondition } from '../../api/conditions.js';
import {
  FINALIZER_POOL_PROTECTION,
  LABEL_NAMESPACE_ENABLED,
  LABEL_POOL,
} from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS } from '../../../client/api/resources.js';
import { crcBounds } from '../../crc-bounds.js';
import type { KubeObject } from '../../kube/objects.js';
import { controllerReference } from '../../kube/ownership.js';
import { createLogger } from '../../runtime/logger.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import { PoolController } from './pool-controller.js';

const NS = 'tenant';
const KEY = `${NS}/pool`;
const context = { logger: createLogger('error') };
const timings = DEFAULT_TIMINGS.pool;

/**
 * PoolController.reconcile on in-memory ports, each case run twice: the second pass sees what the
 * first one wrote (the fake cache is never behind) and must not act on it again — no second
 * instance, no second delete. The integration tests on a real control plane stay the proof.
 */
describe('PoolController.reconcile', () => {
  let ports: FakePorts;
  let controller: PoolController;

  beforeEach(() => {
    ports = fakePorts();
    const problems: string[] = [];
    controller = new PoolController(ports, { timings, crc: crcBounds({}, {}, problems) });
    expect(problems).toEqual([]);
    ports.api.seed<KubeObject>(NAMESPACES, {
      metadata: { name: NS, labels: { [LABEL_NAMESPACE_ENABLED]: 'true' } },
    });
  });

  const pool = (): ClusterPool | undefined => ports.api.peek<ClusterPool>(POOLS, 'pool', NS);
  const instances = (): ClusterInstance[] => ports.api.all<ClusterInstance>(INSTANCES, NS);
  const writesOf = (verb: string): string[] =>
    ports.api.writes.filter((w) => w.startsWith(`${verb} `));

  function seedPool(spec: Partial<ClusterPool['spec']>): ClusterPool {
    return ports.api.seed<ClusterPool>(POOLS, {
      metadata: { name: 'pool', namespace: NS },
      spec: { type: 'hcp', maxSize: 3, template: {}, ...spec },
    } as unknown as ClusterPool);
  }

  function seedInstance(name: string, phase: string, extra: Partial<ClusterInstance> = {}) {
    const owner = pool()?.metadata as { name: string; uid: string };
    return ports.api.seed<ClusterInstance>(INSTANCES, {
      metadata: {
        name,
        namespace: NS,
        labels: { [LABEL_POOL]: 'pool' },
        ownerReferences: [controllerReference(POOLS, { metadata: owner })],
      },
      spec: { type: 'hcp', poolRef: { name: 'pool' }, template: {} },
      status: {
        // Made by the pool: its authorization to provision (pool-membership.ts).
        provisioning: { startedAt: '2026-01-01T00:00:00Z', pool: 'pool' },
        phase,
        conditions: [
          {
            type: 'Ready',
            status: phase === 'Ready' ? 'True' : 'False',
            reason: phase === 'Ready' ? 'Ready' : 'ProvisioningFailed',
            message: phase === 'Ready' ? 'ready' : 'the guest did not boot',
            lastTransitionTime: new Date(ports.clock.now()).toISOString(),
          },
        ],
      },
      ...extra,
    } as unknown as ClusterInstance);
  }

  function seedBoundLease(name: string, instance: ClusterInstance): ClusterLease {
    return ports.api.seed<ClusterLease>(LEASES, {
      metadata: { name, namespace: NS },
      spec: { poolRef: { name: 'pool' } },
      status: {
        phase: 'Bound',
        instanceRef: { name: instance.metadata?.name, uid: instance.metadata?.uid },
      },
    } as unknown as ClusterLease);
  }

  it('creates one instance towards minSize per pass, and never the same one twice', async () => {
    seedPool({ minSize: 1 });

    await controller.reconcile(KEY, context);
    expect(instances().map((i) => i.metadata?.name)).toEqual(['pool-0']);
    expect(instances()[0]?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'ClusterPool',
      uid: pool()?.metadata?.uid,
      controller: true,
    });
    expect(ports.events.recorded.map((e) => e.reason)).toEqual(['InstanceCreated']);
    // Its authorization, right after the create: what makes it the pool's.
    expect(instances()[0]?.status?.provisioning).toMatchObject({ pool: 'pool' });
    expect(writesOf('status').filter((w) => w.includes('ClusterInstance'))).toEqual([
      `status ClusterInstance ${NS}/pool-0`,
    ]);

    // The second pass sees pool-0 on its way: no second instance; the pool is protected now and
    // counts it.
    await controller.reconcile(KEY, context);
    expect(instances()).toHaveLength(1);
    expect(writesOf('create')).toEqual([`create ClusterInstance ${NS}/pool-0`]);
    expect(pool()?.metadata?.finalizers).toEqual([FINALIZER_POOL_PROTECTION]);
    expect(pool()?.status).toMatchObject({ totalInstances: 1, availableInstances: 0 });
    expect(findCondition(pool()?.status?.conditions, 'CapacityAvailable')?.status).toBe('True');
  });

  it('neither counts nor adopts an instance it did not make, whatever its labels and owner say', async () => {
    seedPool({ minSize: 1 });
    // Named, labelled and owned like the pool's, with no authorization: a tenant's own.
    const forged = seedInstance('pool-0', 'Ready');
    ports.api.seed<ClusterInstance>(INSTANCES, {
      ...forged,
      status: { ...forged.status, provisioning: undefined },
    });
    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);
    // The pool makes its own instance under the next name, and says whose pool-0 is not.
    expect(instances().map((i) => i.metadata?.name)).toEqual(['pool-0', 'pool-1']);
    expect(pool()?.status).toMatchObject({ totalInstances: 1, availableInstances: 0 });
    const names = findCondition(pool()?.status?.conditions, 'NamesAvailable');
    expect(names?.status).toBe('False');
    expect(names?.message).toContain('not made by ClusterPool pool');
  });

  it('provisions one instance per waiting lease, named past the names leases hold', async () => {
    seedPool({});
    ports.api.seed<ClusterLease>(LEASES, {
      metadata: { name: 'pool-0', namespace: NS },
      spec: { poolRef: { name: 'pool' } },
    } as unknown as ClusterLease);

    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);

    // pool-0-kubeconfig would be the lease's Secret: the instance takes the next name.
    expect(instances().map((i) => i.metadata?.name)).toEqual(['pool-1']);
    expect(pool()?.status).toMatchObject({ totalInstances: 1 });
  });

  it('trims an idle spare above the floors once it has been idle long enough', async () => {
    seedPool({ minSize: 0, warmSpares: 0 });
    const spare = seedInstance('pool-0', 'Ready');
    ports.clock.advance(timings.scaleDownIdleMs - 1000);

    expect(await controller.reconcile(KEY, context)).toEqual({ requeueAfterMs: 1000 });
    expect(writesOf('delete')).toEqual([]);

    ports.clock.advance(1000);
    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);
    expect(writesOf('delete')).toEqual([`delete ClusterInstance ${NS}/pool-0`]);
    expect(instances().find((i) => i.metadata?.uid === spare.metadata?.uid)).toBeUndefined();
  });

  it('replaces a failed unclaimed instance and says why, but keeps a claimed one', async () => {
    seedPool({ minSize: 2 });
    seedInstance('pool-0', 'Failed');
    const held = seedInstance('pool-1', 'Failed');
    seedBoundLease('job', held);

    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);

    expect(writesOf('delete')).toEqual([`delete ClusterInstance ${NS}/pool-0`]);
    expect(instances().find((i) => i.metadata?.name === 'pool-1')?.metadata?.uid).toBe(
      held.metadata?.uid,
    );
    const healthy = findCondition(pool()?.status?.conditions, 'ProvisioningHealthy');
    expect(healthy).toMatchObject({ status: 'False', reason: 'InstancesFailing' });
    expect(healthy?.message).toContain('pool-0: ProvisioningFailed: the guest did not boot');
    expect(ports.events.recorded.filter((e) => e.reason === 'InstanceFailed')).toHaveLength(1);
  });

  it('keeps its replacement backoff while a spare Ready since before the failures stays Ready', async () => {
    // Found by the chaos soak: every replacement of a spare failed, the other spare stayed Ready,
    // and the failed one was replaced every 2.5 s instead of after 30 s, 1 min, 2 min …
    seedPool({ minSize: 2, warmSpares: 2 });
    seedInstance('pool-0', 'Ready');
    seedInstance('pool-1', 'Failed');
    ports.clock.advance(1000);
    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);
    expect(writesOf('delete')).toEqual([`delete ClusterInstance ${NS}/pool-1`]);
    expect(instances().map((i) => i.metadata?.name)).toEqual(['pool-0', 'pool-1']);

    // Its replacement fails too, a moment later: the next replacement waits for the backoff.
    ports.clock.advance(1000);
    seedInstance('pool-1', 'Failed');
    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);
    expect(writesOf('delete')).toHaveLength(1);
    const healthy = findCondition(pool()?.status?.conditions, 'ProvisioningHealthy');
    expect(healthy?.message).toContain('attempt 2');
    ports.clock.advance(timings.replaceFailedBaseMs);
    await controller.reconcile(KEY, context);
    expect(writesOf('delete')).toHaveLength(2);

    // An instance that becomes Ready after the failures ends the streak: the next failure goes at once.
    await controller.reconcile(KEY, context);
    ports.clock.advance(1000);
    seedInstance('pool-1', 'Ready');
    await controller.reconcile(KEY, context);
    ports.clock.advance(1000);
    seedInstance('pool-1', 'Failed');
    await controller.reconcile(KEY, context);
    expect(writesOf('delete')).toHaveLength(3);
  });

  it('a deleted pool deletes its unclaimed instances and waits for the lease holding one', async () => {
    seedPool({ minSize: 2 });
    seedInstance('pool-0', 'Ready');
    const held = seedInstance('pool-1', 'Ready');
    seedBoundLease('job', held);
    await controller.reconcile(KEY, context);
    expect(pool()?.metadata?.finalizers).toEqual([FINALIZER_POOL_PROTECTION]);
    const { name, uid } = pool()?.metadata as { name: string; uid: string };
    await ports.client.delete(POOLS, {
      metadata: { name, namespace: NS, uid, resourceVersion: '' },
    });

    await controller.reconcile(KEY, context);
    await controller.reconcile(KEY, context);

    // The second pass deletes nothing more; it only counts the instance that went.
    expect(writesOf('delete')).toEqual([
      `delete ClusterPool ${NS}/pool`,
      `delete ClusterInstance ${NS}/pool-0`,
    ]);
    expect(instances().map((i) => i.metadata?.name)).toEqual(['pool-1']);
    expect(pool()?.status).toMatchObject({ totalInstances: 1, leasedInstances: 1 });
    const terminating = findCondition(pool()?.status?.conditions, 'Terminating');
    expect(terminating).toMatchObject({ status: 'True', reason: 'WaitingForLeases' });
    expect(terminating?.message).toContain('job (ClusterInstance pool-1)');
    expect(pool()?.metadata?.deletionTimestamp).toBeDefined();
    expect(ports.events.recorded.filter((e) => e.reason === 'WaitingForLeases')).toHaveLength(1);
  });
});
