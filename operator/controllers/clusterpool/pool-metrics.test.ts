import { describe, expect, it } from '@jest/globals';
import { LABEL_POOL } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import { poolFigures } from './pool-metrics.js';

const pool = {
  metadata: { name: 'p', namespace: 'ns', uid: 'pool-uid' },
  spec: { type: 'hcp', maxSize: 5, template: {} },
} as unknown as Stored<ClusterPool>;

function instance(
  name: string,
  phase?: 'Provisioning' | 'Ready' | 'Failed',
  extra: { deleting?: boolean; claimedBy?: string } = {},
): Stored<ClusterInstance> {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      labels: { [LABEL_POOL]: 'p' },
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { type: 'hcp', poolRef: { name: 'p' } },
    status: {
      ...(phase ? { phase } : {}),
      ...(extra.claimedBy
        ? { leaseRef: { name: extra.claimedBy, uid: `${extra.claimedBy}-uid` } }
        : {}),
    },
  } as unknown as Stored<ClusterInstance>;
}

const waiting = (name: string): Stored<ClusterLease> =>
  ({
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: { poolRef: { name: 'p' } },
    status: { phase: 'Pending' },
  }) as unknown as Stored<ClusterLease>;

describe('poolFigures', () => {
  it('puts every instance in exactly one state and counts the waiting leases', () => {
    const figures = poolFigures(
      pool,
      [
        instance('p-0', 'Ready'),
        instance('p-1', 'Ready', { claimedBy: 'job' }),
        // A claimed instance that lost readiness is still its lease's.
        instance('p-2', 'Provisioning', { claimedBy: 'other' }),
        instance('p-3'),
        instance('p-4', 'Failed'),
        instance('p-5', 'Ready', { deleting: true, claimedBy: 'gone' }),
      ],
      [waiting('a'), waiting('b')],
    );
    expect(figures).toEqual({
      namespace: 'ns',
      pool: 'p',
      instances: { available: 1, leased: 2, provisioning: 1, failed: 1, terminating: 1 },
      pendingLeases: 2,
      capacity: 5,
    });
  });

  it('counts the unclaimed instances of another version in a pool that follows a stream', () => {
    const versioned = (name: string, ocpVersion: string, claimedBy?: string) => {
      const made = instance(name, 'Ready', { claimedBy });
      return {
        ...made,
        spec: { ...made.spec, template: { ocpVersion } },
      } as Stored<ClusterInstance>;
    };
    const following = {
      ...pool,
      spec: { ...pool.spec, template: { versionStreamRef: { name: 's' } } },
      status: { version: '4.19.8' },
    } as Stored<ClusterPool>;
    const instances = [
      versioned('p-0', '4.19.7'),
      versioned('p-1', '4.19.7', 'job'),
      versioned('p-2', '4.19.8'),
    ];
    expect(poolFigures(following, instances, []).stale).toBe(1);
    expect(poolFigures(pool, instances, [])).not.toHaveProperty('stale');
  });
});
