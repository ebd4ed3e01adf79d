import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { availableInstances, pendingQueue, placeLease } from './lease-queue.js';

const lease = (
  name: string,
  created: string,
  status: ClusterLease['status'] = {},
): ClusterLease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: { name, uid: `uid-${name}`, creationTimestamp: created },
  spec: { poolRef: { name: 'pool' } },
  status,
});
const instance = (
  name: string,
  phase: 'Ready' | 'Provisioning',
  leaseUid?: string,
): ClusterInstance =>
  ({
    metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { type: 'crc', template: {} },
    status: { phase, ...(leaseUid ? { leaseRef: { name: 'x', uid: leaseUid } } : {}) },
  }) as ClusterInstance;

describe('the lease queue', () => {
  const leases = [
    lease('c', '2026-01-01T00:00:03Z'),
    lease('a', '2026-01-01T00:00:01Z'),
    lease('bound', '2026-01-01T00:00:00Z', { phase: 'Bound', instanceRef: { name: 'i0' } }),
    lease('b', '2026-01-01T00:00:02Z', { phase: 'Pending' }),
  ];

  it('orders pending leases by creation time and leaves out bound ones', () => {
    expect(pendingQueue('pool', leases).map((l) => l.metadata!.name)).toEqual(['a', 'b', 'c']);
  });

  it('offers Ready instances that no lease names or claims', () => {
    const instances = [
      instance('i0', 'Ready'),
      instance('i1', 'Ready', 'uid-a'),
      instance('i2', 'Ready'),
      instance('i3', 'Provisioning'),
    ];
    expect(availableInstances(instances, leases).map((i) => i.metadata!.name)).toEqual(['i2']);
  });

  it('gives the n-th lease the n-th instance, and queue positions to the rest', () => {
    const [a, b, c] = pendingQueue('pool', leases);
    const instances = [instance('i5', 'Ready'), instance('i6', 'Provisioning')];
    expect(placeLease(a!, leases, instances)).toEqual({ instance: instances[0] });
    expect(placeLease(b!, leases, instances)).toEqual({ queuePosition: 1 });
    expect(placeLease(c!, leases, instances)).toEqual({ queuePosition: 2 });
  });

  it('keeps a binding lease out of the queue, and the others in their places', () => {
    const instances = [instance('i5', 'Ready'), instance('i7', 'Ready', 'uid-a')];
    const [b, c] = pendingQueue('pool', leases, instances);
    expect([b, c].map((l) => l!.metadata!.name)).toEqual(['b', 'c']);
    expect(placeLease(b!, leases, instances)).toEqual({ instance: instances[0] });
    expect(placeLease(c!, leases, instances)).toEqual({ queuePosition: 1 });
  });
});
