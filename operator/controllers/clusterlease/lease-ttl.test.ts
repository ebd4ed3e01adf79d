import { describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../../client/api/resources.js';
import { findCondition } from '../../api/conditions.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import { leaseTtl } from '../binding/lease-limits.js';
import { expiresAt, expiryConditions } from './lease-ttl.js';

/** A lease as the controller leaves it: a bound one carries the expiresAt its TTL asks for. */
const lease = (ttl: string | undefined, boundTime?: string): ClusterLease => {
  const made: ClusterLease = {
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'ClusterLease',
    metadata: { name: 'l', namespace: 'ci' },
    spec: { poolRef: { name: 'p' }, ...(ttl === undefined ? {} : { ttl }) },
    ...(boundTime ? { status: { phase: 'Bound', boundTime } } : {}),
  };
  const expiry = expiresAt(made);
  if (made.status && expiry) made.status.expiresAt = expiry;
  return made;
};

describe('lease TTL', () => {
  it.each([
    [undefined, { ms: 0 }],
    ['0', { ms: 0 }],
    ['1h30m', { ms: 90 * 60_000 }],
    ['8760h', { ms: 8760 * 3_600_000 }],
    ['8761h', { invalid: 'spec.ttl "8761h" is above the maximum of 8760h' }],
    ['3000000000h', { invalid: 'spec.ttl "3000000000h" is above the maximum of 8760h' }],
    ['2 hours', { invalid: 'spec.ttl "2 hours" is not a Go duration' }],
  ])('reads %s as %j', (ttl, expected) => {
    expect(leaseTtl(lease(ttl))).toEqual(expected);
  });

  it('puts expiresAt at boundTime + ttl, whatever the TTL is now', () => {
    expect(expiresAt(lease('720h', '2026-01-01T00:00:00Z'))).toBe('2026-01-31T00:00:00Z');
    expect(expiresAt(lease('90m', '2026-01-01T00:00:00Z'))).toBe('2026-01-01T01:30:00Z');
    expect(expiresAt(lease('0', '2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(expiresAt(lease('1h'))).toBeUndefined();
  });

  it('gives a bound lease whose stored TTL is beyond the maximum the maximum, not an invalid date', () => {
    expect(expiresAt(lease('3000000000h', '2026-01-01T00:00:00Z'))).toBe('2027-01-01T00:00:00Z');
  });
});

describe('the ExpiringSoon condition', () => {
  const timings = { ...DEFAULT_TIMINGS.lease, expiryWarningMs: 10 * 60_000 };
  const boundAt = Date.parse('2026-01-01T00:00:00Z');
  const at = (minutes: number): number => boundAt + minutes * 60_000;
  const expiring = (l: ClusterLease, now: number) =>
    findCondition(expiryConditions(l, timings, now), 'ExpiringSoon');

  it('turns True the configured time before the deadline, not sooner', () => {
    const bound = lease('2h', '2026-01-01T00:00:00Z');
    expect(expiring(bound, at(110) - 1)).toBeUndefined();
    expect(expiring(bound, at(110))).toMatchObject({
      status: 'True',
      reason: 'TTLExpiring',
      message:
        'TTL 2h expires at 2026-01-01T02:00:00Z; the cluster will be released then unless spec.ttl is raised',
    });
  });

  it('comes at a tenth of a TTL shorter than ten times the warning', () => {
    const bound = lease('30m', '2026-01-01T00:00:00Z');
    expect(expiring(bound, at(27) - 1)).toBeUndefined();
    expect(expiring(bound, at(27))).toMatchObject({ status: 'True' });
  });

  it('turns False once the TTL is raised, and stays away from leases it never concerned', () => {
    const warned = lease('2h', '2026-01-01T00:00:00Z');
    warned.status!.conditions = expiryConditions(warned, timings, at(111));
    // As the bound pass leaves it: the new TTL taken, expiresAt following it.
    const retimed = (ttl: string): ClusterLease => {
      const changed = { ...warned, spec: { ...warned.spec, ttl } };
      const status = { ...warned.status, expiresAt: expiresAt(changed) };
      if (!status.expiresAt) delete status.expiresAt;
      return { ...changed, status };
    };
    expect(expiring(retimed('3h'), at(112))).toMatchObject({
      status: 'False',
      reason: 'TTLExtended',
      message: 'TTL 3h expires at 2026-01-01T03:00:00Z',
    });
    expect(expiring(retimed('0'), at(112))).toMatchObject({
      status: 'False',
      message: 'the lease has no TTL any more',
    });
    expect(expiring(lease('0', '2026-01-01T00:00:00Z'), at(1000))).toBeUndefined();
    expect(expiring(lease('2h'), at(1000))).toBeUndefined();
  });
});
