import { describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../api/resources.js';
import { expiresAt, leaseTtl } from './lease-ttl.js';

const lease = (ttl: string | undefined, boundTime?: string): ClusterLease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: { name: 'l', namespace: 'ci' },
  spec: { poolRef: { name: 'p' }, ...(ttl === undefined ? {} : { ttl }) },
  ...(boundTime ? { status: { phase: 'Bound', boundTime } } : {}),
});

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
