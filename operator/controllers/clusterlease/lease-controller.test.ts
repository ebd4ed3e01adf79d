import { createHash } from 'node:crypto';
import { findCondition } from '../../api/conditions.js';
import { FINALIZER_LEASE_RELEASE, LABEL_NAMESPACE_ENABLED, LABEL_POOL } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { controllerReference } from '../../kube/ownership.js';
import type { Secret } from '../../kube/workloads.js';
import { createLogger } from '../../runtime/logger.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import { LeaseController } from './lease-controller.js';

const NS = 'tenant';
const KUBECONFIG = 'apiVersion: v1\nkind: Config\n';
const context = { logger: createLogger('error') };

/**
 * LeaseController.reconcile on in-memory ports: each case runs the pass twice, and the second
 * pass must find nothing left to do (no write, no Event). The integration tests on a real
 * control plane (test/operator/pools-and-leases.test.ts and others) stay the proof of the whole.
 */
describe('LeaseController.reconcile', () => {
  let ports: FakePorts;
  let controller: LeaseController;

  beforeEach(() => {
    ports = fakePorts();
    controller = new LeaseController(ports, { timings: DEFAULT_TIMINGS.lease });
    ports.api.seed<KubeObject>(NAMESPACES, {
      metadata: { name: NS, labels: { [LABEL_NAMESPACE_ENABLED]: 'true' } },
    });
    ports.api.seed<ClusterPool>(POOLS, {
      metadata: { name: 'pool', namespace: NS },
      spec: { type: 'hcp', maxSize: 2, template: {} },
    } as unknown as ClusterPool);
  });

  /** Runs the pass twice; returns the first result, having checked the second did nothing. */
  async function twice(name: string): Promise<unknown> {
    const first = await controller.reconcile(`${NS}/${name}`, context);
    const writes = [...ports.api.writes];
    const events = [...ports.events.recorded];
    await controller.reconcile(`${NS}/${name}`, context);
    expect(ports.api.writes).toEqual(writes);
    expect(ports.events.recorded).toEqual(events);
    return first;
  }

  const lease = (name: string): ClusterLease | undefined =>
    ports.api.peek<ClusterLease>(LEASES, name, NS);
  const instance = (name: string): ClusterInstance | undefined =>
    ports.api.peek<ClusterInstance>(INSTANCES, name, NS);

  function seedLease(name: string): ClusterLease {
    const seeded = ports.api.seed<ClusterLease>(LEASES, {
      metadata: { name, namespace: NS },
      spec: { poolRef: { name: 'pool' } },
    } as unknown as ClusterLease);
    ports.clock.advance(1000);
    return seeded;
  }

  /** A Ready instance of the pool that has published its kubeconfig, as the instance controller does. */
  function seedReadyInstance(name: string): ClusterInstance {
    const created = ports.api.seed<ClusterInstance>(INSTANCES, {
      metadata: { name, namespace: NS, labels: { [LABEL_POOL]: 'pool' } },
      spec: { type: 'hcp', poolRef: { name: 'pool' }, template: {} },
    } as unknown as ClusterInstance);
    const meta = created.metadata as { name: string; uid: string };
    ports.api.seed<Secret>(SECRETS, {
      metadata: {
        name: `${name}-kubeconfig`,
        namespace: NS,
        ownerReferences: [controllerReference(INSTANCES, { metadata: meta })],
      },
      data: { kubeconfig: Buffer.from(KUBECONFIG).toString('base64') },
    });
    return ports.api.seed<ClusterInstance>(INSTANCES, {
      ...created,
      status: {
        provisioning: { startedAt: '2026-01-01T00:00:00Z', pool: 'pool' },
        phase: 'Ready',
        topology: 'hcp',
        ocpVersion: '4.19.0',
        kubeconfigSecretRef: { name: `${name}-kubeconfig` },
        kubeconfigSHA256: createHash('sha256').update(KUBECONFIG).digest('hex'),
        // Its readiness gates passed just now (the guest health controller's record).
        guestHealth: { checkedAt: new Date(ports.clock.now()).toISOString() },
        conditions: [
          {
            type: 'GuestHealthy',
            status: 'True',
            reason: 'GuestHealthy',
            message: 'every readiness gate passes',
            lastTransitionTime: new Date(ports.clock.now()).toISOString(),
          },
        ],
      },
    });
  }

  it('binds a pending lease to the Ready instance of its pool: claim, copy, Bound, finalizer', async () => {
    const ready = seedReadyInstance('pool-0');
    const pending = seedLease('job');

    await twice('job');

    expect(lease('job')).toMatchObject({
      metadata: { finalizers: [FINALIZER_LEASE_RELEASE] },
      status: {
        phase: 'Bound',
        instanceRef: { name: 'pool-0', uid: ready.metadata?.uid },
        kubeconfigSecretRef: { name: 'job-kubeconfig' },
        topology: 'hcp',
        ocpVersion: '4.19.0',
      },
    });
    const conditions = lease('job')?.status?.conditions;
    expect(findCondition(conditions, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'InstanceBound',
    });
    expect(lease('job')?.status).not.toHaveProperty('queuePosition');
    expect(instance('pool-0')?.status?.leaseRef).toEqual({
      name: 'job',
      uid: pending.metadata?.uid,
    });
    expect(ports.api.peek<Secret>(SECRETS, 'job-kubeconfig', NS)).toMatchObject({
      metadata: {
        ownerReferences: [{ kind: 'ClusterLease', uid: pending.metadata?.uid, controller: true }],
      },
      data: { kubeconfig: Buffer.from(KUBECONFIG).toString('base64') },
    });
    expect(ports.events.recorded.map((e) => e.reason)).toEqual(['Bound']);
  });

  it('writes no kubeconfig into the lease Secret for a claim it lost: the instance went to another lease first', async () => {
    const ready = seedReadyInstance('pool-0');
    seedLease('job');
    // Another lease's claim lands between this pass's cache read and its claim, as another
    // worker's or manager's would: this claim conflicts.
    const updateStatus = ports.api.updateStatus.bind(ports.api);
    let raced = false;
    ports.api.updateStatus = async (type, object) => {
      if (!raced && type === INSTANCES && object.metadata?.name === 'pool-0') {
        raced = true;
        ports.api.seed<ClusterInstance>(INSTANCES, {
          ...ports.api.peek<ClusterInstance>(INSTANCES, 'pool-0', NS)!,
          status: { ...ready.status, leaseRef: { name: 'other', uid: 'uid-of-other' } },
        });
      }
      return updateStatus(type, object);
    };

    await controller.reconcile(`${NS}/job`, context);

    expect(raced).toBe(true);
    expect(instance('pool-0')?.status?.leaseRef).toEqual({ name: 'other', uid: 'uid-of-other' });
    expect(lease('job')?.status?.phase).not.toBe('Bound');
    // The other lease's cluster is in no Secret of this lease's, not even for a moment.
    expect(ports.api.peek<Secret>(SECRETS, 'job-kubeconfig', NS)).toBeUndefined();
    expect(ports.api.writes).not.toContain(`create Secret ${NS}/job-kubeconfig`);
  });

  it('keeps a lease Pending with its queue position while its pool has no Ready instance', async () => {
    seedLease('first');
    seedLease('second');

    expect(await twice('second')).toEqual({
      requeueAfterMs: DEFAULT_TIMINGS.lease.waitingResyncMs,
    });

    const waiting = lease('second');
    expect(waiting?.status).toMatchObject({ phase: 'Pending', queuePosition: 2 });
    expect(findCondition(waiting?.status?.conditions, 'Bound')).toMatchObject({
      status: 'False',
      reason: 'WaitingForCapacity',
    });
    expect(waiting?.metadata?.finalizers).toContain(FINALIZER_LEASE_RELEASE);
    // The other lease is untouched: each pass writes its own lease only.
    expect(lease('first')?.status).toBeUndefined();
  });

  it('waits, without failing, for a pool that does not exist yet', async () => {
    ports.api.seed<ClusterLease>(LEASES, {
      metadata: { name: 'early', namespace: NS },
      spec: { poolRef: { name: 'later' } },
    } as unknown as ClusterLease);

    await twice('early');

    const waiting = lease('early');
    expect(waiting?.status?.phase).toBe('Pending');
    expect(findCondition(waiting?.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PoolNotFound',
    });
  });

  it('says once that it waits for a missing pool, also after a restart, and again when a new wait starts', async () => {
    ports.api.seed<ClusterLease>(LEASES, {
      metadata: { name: 'early', namespace: NS },
      spec: { poolRef: { name: 'later' } },
    } as unknown as ClusterLease);
    const notFound = () => ports.events.recorded.filter((e) => e.reason === 'PoolNotFound');
    const message = `ClusterPool "later" does not exist in namespace "${NS}"; create it and the lease binds, or delete the lease`;

    await twice('early');
    expect(notFound()).toEqual([
      { object: 'ClusterLease tenant/early', type: 'Warning', reason: 'PoolNotFound', message },
    ]);
    // A restarted operator decides from the stored condition: nothing new.
    controller = new LeaseController(ports, { timings: DEFAULT_TIMINGS.lease });
    await twice('early');
    expect(notFound()).toHaveLength(1);

    // The pool comes (the wait ends: WaitingForCapacity needs no person) and goes again.
    const pool = ports.api.seed<ClusterPool>(POOLS, {
      metadata: { name: 'later', namespace: NS },
      spec: { type: 'hcp', maxSize: 1, template: {} },
    } as unknown as ClusterPool);
    await twice('early');
    expect(findCondition(lease('early')?.status?.conditions, 'Ready')?.reason).toBe(
      'WaitingForCapacity',
    );
    expect(ports.events.recorded.filter((e) => e.reason === 'WaitingForCapacity')).toEqual([]);
    await ports.client.delete(POOLS, pool as never);
    await twice('early');
    expect(notFound()).toHaveLength(2);
  });

  it('deletes the instance a deleted lease held (it may have been used), then lets the lease go', async () => {
    seedReadyInstance('pool-0');
    seedLease('job');
    await controller.reconcile(`${NS}/job`, context);
    const bound = lease('job');
    expect(bound?.status?.phase).toBe('Bound');
    const { name, uid } = bound?.metadata as { name: string; uid: string };
    await ports.client.delete(LEASES, {
      metadata: { name, namespace: NS, uid, resourceVersion: '' },
    });
    expect(lease('job')?.metadata?.deletionTimestamp).toBeDefined();

    await twice('job');

    expect(lease('job')).toBeUndefined();
    expect(instance('pool-0')).toBeUndefined();
    expect(ports.api.writes.filter((w) => w.startsWith('delete ClusterInstance'))).toEqual([
      `delete ClusterInstance ${NS}/pool-0`,
    ]);
  });

  it('deletes a lease left in the Releasing phase of earlier versions, and nothing else', async () => {
    const old = seedLease('old');
    ports.api.seed<ClusterLease>(LEASES, {
      ...old,
      status: { phase: 'Releasing' },
    } as unknown as ClusterLease);

    await twice('old');

    expect(lease('old')).toBeUndefined();
    expect(ports.api.writes).toEqual([`delete ClusterLease ${NS}/old`]);
  });
});
