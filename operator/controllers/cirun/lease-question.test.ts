import { describe, expect, it } from '@jest/globals';
import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import type { GitHubReclaimSettings } from './github-settings.js';
import { leaseQuestion } from './lease-question.js';

const settings = { allowedRepositories: ['acme/*'] } as GitHubReclaimSettings;
const pools = new Set(['ci/pool']);
const poolExists = (namespace: string, name: string): boolean => pools.has(`${namespace}/${name}`);

const leaseOf = (changes: {
  repository?: string;
  pool?: string;
  status?: ClusterLease['status'];
  labels?: Record<string, string>;
}): ClusterLease => ({
  apiVersion: LEASES.apiVersion,
  kind: LEASES.kind,
  metadata: {
    name: 'l',
    namespace: 'ci',
    creationTimestamp: '2026-12-01T10:00:00Z',
    labels: changes.labels,
    annotations: {
      [RUN_ANNOTATIONS.repository]: changes.repository ?? 'acme/app',
      [RUN_ANNOTATIONS.runId]: '101',
    },
  },
  spec: { poolRef: { name: changes.pool ?? 'pool' } },
  status:
    'status' in changes
      ? changes.status
      : { phase: 'Bound', instanceRef: { name: 'pool-0' }, boundTime: '2026-12-01T10:05:00Z' },
});

describe('whether a lease is asked about', () => {
  it('asks about a bound lease of a pool that exists, with answers from after its binding', () => {
    expect(leaseQuestion(leaseOf({}), settings, poolExists)).toMatchObject({
      kind: 'ask',
      runKey: 'acme/app#101#1',
      answersFrom: Date.parse('2026-12-01T10:05:01Z'),
    });
    const notReady = leaseOf({
      status: {
        phase: 'NotReady',
        instanceRef: { name: 'pool-0' },
        boundTime: '2026-12-01T10:05:00Z',
      },
    });
    expect(leaseQuestion(notReady, settings, poolExists)).toMatchObject({ kind: 'ask' });
  });

  it('only tells a lease kept past its job why GitHub is not asked', () => {
    const held = leaseOf({ labels: { [LABEL_LEASE_HELD]: 'true' } });
    expect(leaseQuestion(held, settings, poolExists)).toMatchObject({
      kind: 'tell',
      verdict: { reason: 'KeptPastItsJob', message: expect.stringContaining('held') },
    });
  });

  it('costs nothing for a lease that waits, lost its cluster, or names no pool that exists', () => {
    for (const lease of [
      leaseOf({ status: undefined }),
      leaseOf({ status: { phase: 'Pending' } }),
      leaseOf({
        status: {
          phase: 'Lost',
          instanceRef: { name: 'pool-0' },
          boundTime: '2026-12-01T10:05:00Z',
        },
      }),
      leaseOf({ pool: 'no-such-pool' }),
    ])
      expect(leaseQuestion(lease, settings, poolExists)).toEqual({ kind: 'none' });
  });

  it('only tells a lease whose repository is not allowed or whose annotations are malformed', () => {
    expect(leaseQuestion(leaseOf({ repository: 'other/app' }), settings, poolExists)).toMatchObject(
      {
        kind: 'tell',
        verdict: { reason: 'RepositoryNotAllowed' },
      },
    );
    expect(leaseQuestion(leaseOf({ repository: 'acme' }), settings, poolExists)).toMatchObject({
      kind: 'tell',
      verdict: { reason: 'InvalidRunAnnotations' },
    });
  });
});
