import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { claimedInstances, nextInstanceName } from './pool-accounting.js';

const named = (...names: string[]): { metadata: { name: string } }[] =>
  names.map((name) => ({ metadata: { name } }));

describe('nextInstanceName', () => {
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

describe('claimedInstances', () => {
  const instance = (name: string, uid: string, claim?: string): ClusterInstance => ({
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'ClusterInstance',
    metadata: { name, uid },
    spec: { type: 'hcp', template: {} } as ClusterInstance['spec'],
    ...(claim ? { status: { leaseRef: { name: claim, uid: `${claim}-uid` } } } : {}),
  });
  const bound = (name: string, ref: { name: string; uid?: string }): ClusterLease => ({
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'ClusterLease',
    metadata: { name, uid: `${name}-uid` },
    spec: { poolRef: { name: 'p' } },
    status: { phase: 'Bound', instanceRef: ref },
  });

  it('counts a claim, and a binding only to the very instance it names', () => {
    const instances = [
      instance('p-0', 'a', 'job-1'),
      instance('p-1', 'new-b'),
      instance('p-2', 'c'),
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
});
