import { describe, expect, it } from '@jest/globals';
import type { Instance } from '../binding/binding-model.js';
import { currentCondition, staleInstances } from './stale-rollout.js';
import type { Pool } from './pool-conditions.js';

const instance = (
  name: string,
  version: string,
  created: string,
  extra: { claimedBy?: string; deleting?: boolean } = {},
): Instance => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: {
    name,
    namespace: 'ci',
    uid: `uid-${name}`,
    resourceVersion: '1',
    creationTimestamp: created,
    ...(extra.deleting ? { deletionTimestamp: created } : {}),
  },
  spec: {
    type: 'hcp',
    poolRef: { name: 'p' },
    template: { ocpVersion: version, memory: '8Gi', cores: 2 },
  },
  status: {
    phase: 'Ready',
    ...(extra.claimedBy
      ? { leaseRef: { name: extra.claimedBy, uid: `uid-${extra.claimedBy}` } }
      : {}),
  },
});

describe('stale instances', () => {
  it('are the unclaimed ones, not being deleted, of another version, oldest first, newer ones too', () => {
    const instances = [
      instance('p-3', '4.19.7', '2026-01-01T00:00:03Z'),
      instance('p-1', '4.19.7', '2026-01-01T00:00:01Z'),
      instance('p-2', '4.19.8', '2026-01-01T00:00:02Z'),
      instance('p-0', '4.19.7', '2026-01-01T00:00:00Z', { claimedBy: 'job' }),
      instance('p-4', '4.19.6', '2026-01-01T00:00:04Z', { deleting: true }),
    ];
    expect(staleInstances(instances, [], '4.19.8').map((i) => i.metadata.name)).toEqual([
      'p-1',
      'p-3',
    ]);
    // A stream pinned back to an older version makes the newer instances the stale ones.
    expect(staleInstances(instances, [], '4.19.7').map((i) => i.metadata.name)).toEqual(['p-2']);
  });

  it('say how many in AllInstancesCurrent', () => {
    const pool = { metadata: { name: 'p', generation: 2 } } as Pool;
    expect(currentCondition(pool, 0, '4.19.8')).toMatchObject({
      status: 'True',
      reason: 'AllCurrent',
    });
    expect(currentCondition(pool, 2, '4.19.8')).toMatchObject({
      status: 'False',
      reason: 'StaleInstances',
      observedGeneration: 2,
    });
    expect(currentCondition(pool, 2, '4.19.8').message).toMatch(
      /^2 unclaimed instance\(s\) of another version than 4\.19\.8/,
    );
  });
});
