import { describe, expect, it } from '@jest/globals';
import type { Instance, Lease } from './binding-model.js';
import { placeLease } from './binding-model.js';
import { canTake, instanceVersion } from './version-match.js';

const meta = (name: string, created: string) => ({
  name,
  namespace: 'ci',
  uid: `uid-${name}`,
  resourceVersion: '1',
  creationTimestamp: created,
});

let clock = 0;
const next = (): string => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString();

const lease = (name: string, ocpVersion?: string): Lease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: meta(name, next()),
  spec: { poolRef: { name: 'pool' }, ...(ocpVersion ? { ocpVersion } : {}) },
  status: { phase: 'Pending' },
});

const instance = (name: string, version: string, reported?: string): Instance => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: meta(name, next()),
  spec: {
    type: 'hcp',
    poolRef: { name: 'pool' },
    template: { ocpVersion: version, memory: '8Gi', cores: 2 },
  },
  status: { phase: 'Ready', ...(reported ? { ocpVersion: reported } : {}) },
});

/** Who takes what: each lease's instance name, or its queue position. */
function placements(leases: Lease[], instances: Instance[]): Record<string, string | number> {
  return Object.fromEntries(
    leases.map((l) => {
      const placement = placeLease(l, leases, instances);
      return [
        l.metadata.name,
        'instance' in placement ? placement.instance.metadata.name : placement.queuePosition,
      ];
    }),
  );
}

describe('leases that ask for a version', () => {
  it('takes the version a Ready guest reports over the one its template asked for', () => {
    expect(instanceVersion(instance('i', '4.19.7', '4.19.8'))).toBe('4.19.8');
    expect(instanceVersion(instance('i', '4.19.7'))).toBe('4.19.7');
    expect(canTake(lease('l', '4.19'), instance('i', '4.19.7'))).toBe(true);
    expect(canTake(lease('l', '4.19.8'), instance('i', '4.19.7'))).toBe(false);
    expect(canTake(lease('l'), instance('i', '4.18.3'))).toBe(true);
  });

  it('lets a later lease take an instance the earlier ones cannot use', () => {
    const leases = [lease('wants-418', '4.18'), lease('wants-419', '4.19')];
    const instances = [instance('i419', '4.19.7')];
    expect(placements(leases, instances)).toEqual({ 'wants-418': 1, 'wants-419': 'i419' });
    const reversed = [lease('first-419', '4.19'), lease('then-418', '4.18')];
    const older = [instance('i418', '4.18.12')];
    expect(placements(reversed, older)).toEqual({ 'first-419': 1, 'then-418': 'i418' });
  });

  it('serves leases first come first served among those that can take an instance', () => {
    const leases = [lease('first', '4.19'), lease('second', '4.19'), lease('any')];
    const instances = [instance('i1', '4.19.7')];
    expect(placements(leases, instances)).toEqual({ first: 'i1', second: 1, any: 2 });
  });

  it('moves an earlier lease that does not care to another instance rather than leave a later one waiting', () => {
    const leases = [lease('any'), lease('exact', '4.19.8')];
    const instances = [instance('new', '4.19.8'), instance('old', '4.19.7')];
    expect(placements(leases, instances)).toEqual({ any: 'old', exact: 'new' });
  });

  it('counts in the queue position only the leases ahead that want a version this one could use', () => {
    const leases = [
      lease('a', '4.18'),
      lease('b', '4.19'),
      lease('c', '4.19.7'),
      lease('d', '4.19'),
    ];
    expect(placements(leases, [])).toEqual({ a: 1, b: 1, c: 2, d: 3 });
  });

  it('keeps the old order when no lease asks for a version', () => {
    const leases = [lease('a'), lease('b'), lease('c')];
    const instances = [instance('i1', '4.19.7'), instance('i2', '4.18.1')];
    expect(placements(leases, instances)).toEqual({ a: 'i1', b: 'i2', c: 1 });
  });
});
