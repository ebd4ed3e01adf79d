import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';
import {
  availableInstances,
  claimedInstances,
  legacyPhase,
  looksAvailable,
  nextInstanceName,
  pendingQueue,
  placeLease,
  poolDemand,
} from './binding-model.js';

const meta = (name: string, uid: string, created = '2026-01-01T00:00:00Z') => ({
  name,
  namespace: 'ci',
  uid,
  resourceVersion: '1',
  creationTimestamp: created,
});

const lease = (name: string, created: string, status: ClusterLease['status'] = {}): Lease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: meta(name, `uid-${name}`, created),
  spec: { poolRef: { name: 'pool' } },
  status,
});

const instance = (
  name: string,
  phase: 'Ready' | 'Provisioning',
  claim?: { name?: string; uid?: string },
  uid = `uid-${name}`,
): Instance => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: meta(name, uid),
  spec: { type: 'crc', template: {} } as ClusterInstance['spec'],
  status: { phase, ...(claim ? { leaseRef: claim } : {}) },
});

describe('the lease queue', () => {
  const leases = [
    lease('c', '2026-01-01T00:00:03Z'),
    lease('a', '2026-01-01T00:00:01Z'),
    lease('bound', '2026-01-01T00:00:00Z', { phase: 'Bound', instanceRef: { name: 'i0' } }),
    lease('b', '2026-01-01T00:00:02Z', { phase: 'Pending' }),
  ];

  it('orders pending leases by creation time and leaves out bound ones', () => {
    expect(pendingQueue('pool', leases).map((l) => l.metadata.name)).toEqual(['a', 'b', 'c']);
  });

  it('offers Ready instances that no lease names or claims', () => {
    const instances = [
      instance('i0', 'Ready'),
      instance('i1', 'Ready', { name: 'a', uid: 'uid-a' }),
      instance('i2', 'Ready'),
      instance('i3', 'Provisioning'),
    ];
    expect(availableInstances(instances, leases).map((i) => i.metadata.name)).toEqual(['i2']);
  });

  it('gives the n-th lease the n-th instance, and queue positions to the rest', () => {
    const [a, b, c] = pendingQueue('pool', leases);
    const instances = [instance('i5', 'Ready'), instance('i6', 'Provisioning')];
    expect(placeLease(a!, leases, instances)).toEqual({ instance: instances[0] });
    expect(placeLease(b!, leases, instances)).toEqual({ queuePosition: 1 });
    expect(placeLease(c!, leases, instances)).toEqual({ queuePosition: 2 });
  });

  it('keeps a binding lease out of the queue and the demand, and the others in their places', () => {
    const instances = [instance('i5', 'Ready'), instance('i7', 'Ready', { uid: 'uid-a' })];
    const [b, c] = pendingQueue('pool', leases, instances);
    expect([b, c].map((l) => l!.metadata.name)).toEqual(['b', 'c']);
    expect(placeLease(b!, leases, instances)).toEqual({ instance: instances[0] });
    expect(placeLease(c!, leases, instances)).toEqual({ queuePosition: 1 });
    expect(poolDemand('pool', leases, instances)).toBe(2);
    expect(poolDemand('pool', leases, [])).toBe(3);
    expect(poolDemand('other', leases, [])).toBe(0);
  });
});

describe('claims', () => {
  const bound = (name: string, ref: { name: string; uid?: string }): Lease =>
    lease(name, '2026-01-01T00:00:00Z', { phase: 'Bound', instanceRef: ref });

  it('counts a claim, and a binding only to the very instance it names', () => {
    const instances = [
      instance('p-0', 'Ready', { name: 'job-1', uid: 'uid-job-1' }, 'a'),
      instance('p-1', 'Ready', undefined, 'new-b'),
      instance('p-2', 'Ready', undefined, 'c'),
    ];
    const leases = [
      bound('job-1', { name: 'p-0', uid: 'a' }),
      // Lost its p-1: the p-1 there now is another object.
      bound('job-2', { name: 'p-1', uid: 'old-b' }),
      // Bound before bindings recorded a UID.
      bound('job-3', { name: 'p-2' }),
    ];
    expect([...claimedInstances(instances, leases)].sort()).toEqual(['p-0', 'p-2']);
  });

  it('takes a leaseRef without a UID for an earlier version’s projection, not a claim', () => {
    const projected = instance('p-0', 'Ready', { name: 'job-1' });
    expect(claimedInstances([projected], [])).toEqual(new Set());
    expect(looksAvailable(projected)).toBe(true);
    expect(looksAvailable(instance('p-1', 'Ready', { name: 'job-1', uid: 'u' }))).toBe(false);
    expect(
      looksAvailable({
        ...projected,
        metadata: { ...projected.metadata, deletionTimestamp: 'now' },
      }),
    ).toBe(false);
  });
});

describe('lease phases of earlier versions', () => {
  it.each([
    ['Releasing', 'Releasing'],
    ['Released', 'Released'],
    ['Bound', undefined],
    [undefined, undefined],
  ])('reads %s as %s', (phase, legacy) => {
    const stored = { phase } as unknown as ClusterLease['status'];
    expect(legacyPhase(lease('l', '2026-01-01T00:00:00Z', stored))).toBe(legacy);
  });
});

describe('nextInstanceName', () => {
  const named = (...names: string[]): { metadata: { name: string } }[] =>
    names.map((name) => ({ metadata: { name } }));

  it.each([
    { taken: [], next: 'crc-0' },
    { taken: ['crc-0', 'crc-1'], next: 'crc-2' },
    { taken: ['crc-0', 'crc-2'], next: 'crc-1' },
    // Other pools' and other shapes of names do not count.
    { taken: ['crc-pool-0', 'crc-x', 'crc-01a'], next: 'crc-0' },
  ])('after $taken is $next', ({ taken, next }) => {
    expect(nextInstanceName('crc', named(...taken))).toBe(next);
  });
});
