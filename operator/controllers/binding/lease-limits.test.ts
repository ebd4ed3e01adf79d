import { describe, expect, it } from '@jest/globals';
import type { ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import { accountPool } from '../clusterpool/pool-accounting.js';
import type { Lease } from './binding-model.js';
import { bindRefusal, HOLD_CLOCK_SKEW_MS, latestDeadline, poolLimits } from './lease-limits.js';

const HOUR = 3_600_000;
const pool = (spec: Partial<ClusterPool['spec']> = {}): Stored<ClusterPool> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterPool',
  metadata: { name: 'p', namespace: 'ci', uid: 'pool-uid', resourceVersion: '1' },
  spec: {
    type: 'hcp',
    maxSize: 3,
    template: { ocpVersion: '4.16.10', memory: '8Gi', cores: 2 },
    ...spec,
  },
});
const lease = (
  name: string,
  ttl?: string,
  labels?: Record<string, string>,
  status?: ClusterLease['status'],
): Lease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: {
    name,
    namespace: 'ci',
    uid: `${name}-uid`,
    resourceVersion: '1',
    creationTimestamp: '2026-01-01T00:00:00Z',
    ...(labels ? { labels } : {}),
  },
  spec: { poolRef: { name: 'p' }, ...(ttl ? { ttl } : {}) },
  ...(status ? { status } : {}),
});
const held = { labels: { 'guestcluster.opdev.io/held': 'true' } };

describe("a pool's limits on binding", () => {
  const capped = poolLimits(pool({ maxLeaseDuration: '2h', maxHoldDuration: '30m' }));

  it('refuse a lease without a TTL or above the cap, and any lease labelled held', () => {
    expect(bindRefusal(lease('a'), capped)?.reason).toBe('TTLRequired');
    expect(bindRefusal(lease('b', '2h1m'), capped)?.reason).toBe('TTLAbovePoolLimit');
    expect(bindRefusal(lease('c', '2h'), capped)).toBeUndefined();
    expect(bindRefusal(lease('d', '1h', held.labels), capped)?.reason).toBe('HeldBeforeBinding');
    // Without a cap only the hold is refused.
    expect(bindRefusal(lease('e'), poolLimits(pool()))).toBeUndefined();
  });

  it('leave a refused lease out of the demand that makes the pool provision', () => {
    const capped2h = pool({ maxLeaseDuration: '2h', warmSpares: 0 });
    const leases = [lease('fits', '1h'), lease('too-long', '5h'), lease('no-ttl')];
    expect(accountPool(capped2h, [], leases)).toMatchObject({ pendingDemand: 1, need: 1 });
    expect(accountPool(pool({ warmSpares: 0 }), [], leases)).toMatchObject({ pendingDemand: 3 });
  });
});

describe('the latest deadline of a bound lease', () => {
  const boundTime = '2026-01-01T00:00:00Z';
  const at = Date.parse(boundTime);
  const bound = (labels?: Record<string, string>): Lease => lease('x', '1h', labels, { boundTime });
  const limits = poolLimits(pool({ maxLeaseDuration: '2h', maxHoldDuration: '30m' }));

  it('is maxLeaseDuration from binding, or maxHoldDuration from the hold when that is later', () => {
    expect(latestDeadline(bound(), limits, undefined)).toBe(at + 2 * HOUR);
    const heldAt = at + 1.9 * HOUR;
    expect(latestDeadline(bound(held.labels), limits, heldAt)).toBe(
      heldAt + 0.5 * HOUR + HOLD_CLOCK_SKEW_MS,
    );
    // Held early, the pool's own cap is later than the hold's end.
    expect(latestDeadline(bound(held.labels), limits, at + HOUR)).toBe(at + 2 * HOUR);
    // The label gone, the hold no longer counts.
    expect(latestDeadline(bound(), limits, heldAt)).toBe(at + 2 * HOUR);
    expect(latestDeadline(bound(), poolLimits(pool()), undefined)).toBeUndefined();
  });
});
