import { describe, expect, it } from '@jest/globals';
import type { ClusterPool } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';
import { expectedHoldMs, gateInstances, handOutProblem } from './hand-out-gate.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const instance = (
  name: string,
  health: {
    status?: 'True' | 'False';
    checkedAt?: number;
    notAfter?: number;
    claimed?: boolean;
  } = {},
): Instance =>
  ({
    metadata: { name, namespace: 'ci', uid: `uid-${name}`, resourceVersion: '1' },
    spec: { type: 'hcp', poolRef: { name: 'pool' }, template: { ocpVersion: '4.19.0' } },
    status: {
      phase: 'Ready',
      ...(health.claimed ? { leaseRef: { name: 'other', uid: 'uid-other' } } : {}),
      guestHealth: {
        checkedAt: iso(health.checkedAt ?? NOW - MINUTE),
        ...(health.notAfter ? { certificatesNotAfter: iso(health.notAfter) } : {}),
      },
      conditions: health.status
        ? [
            {
              type: 'GuestHealthy',
              status: health.status,
              reason: health.status === 'True' ? 'GuestHealthy' : 'GuestUnhealthy',
              message:
                health.status === 'True'
                  ? 'every readiness gate passes'
                  : 'nodes: node crc is not Ready',
              lastTransitionTime: iso(NOW - HOUR),
            },
          ]
        : [],
    },
  }) as unknown as Instance;

const lease = (ttl?: string): Lease =>
  ({
    metadata: { name: 'job', namespace: 'ci', uid: 'uid-job' },
    spec: { poolRef: { name: 'pool' }, ...(ttl ? { ttl } : {}) },
  }) as unknown as Lease;

const pool = (maxLeaseDuration?: string): ClusterPool =>
  ({
    metadata: { name: 'pool' },
    spec: { ...(maxLeaseDuration ? { maxLeaseDuration } : {}) },
  }) as ClusterPool;

const MAX_AGE = 3 * MINUTE;

describe('the hand-out gate', () => {
  it('hands out a guest that passed a recent check with certificates that outlive the lease', () => {
    const fine = instance('pool-0', { status: 'True', notAfter: NOW + 30 * 24 * HOUR });
    expect(handOutProblem(fine, lease('8h'), pool(), NOW, MAX_AGE)).toBeUndefined();
  });

  it('holds back a guest not checked yet, failing a gate, or checked too long ago', () => {
    expect(handOutProblem(instance('a'), lease(), pool(), NOW, MAX_AGE)).toBe(
      'ClusterInstance a has not had its readiness gates checked yet',
    );
    expect(handOutProblem(instance('b', { status: 'False' }), lease(), pool(), NOW, MAX_AGE)).toBe(
      'ClusterInstance b fails a readiness gate: nodes: node crc is not Ready',
    );
    const stale = instance('c', { status: 'True', checkedAt: NOW - 4 * MINUTE });
    expect(handOutProblem(stale, lease(), pool(), NOW, MAX_AGE)).toBe(
      `ClusterInstance c had its readiness gates last checked at ${iso(NOW - 4 * MINUTE)}, more than 3m0s ago`,
    );
  });

  it('refuses certificates that expire before the lease and a margin', () => {
    const short = instance('d', { status: 'True', notAfter: NOW + 8 * HOUR + 30 * MINUTE });
    expect(handOutProblem(short, lease('8h'), pool(), NOW, MAX_AGE)).toBe(
      `ClusterInstance d has certificates that expire at ${iso(NOW + 8 * HOUR + 30 * MINUTE)}, before 8h0m0s of lease and a 1h0m0s margin`,
    );
    expect(handOutProblem(short, lease('7h'), pool(), NOW, MAX_AGE)).toBeUndefined();
  });

  it('expects a lease to hold its TTL, else the pool maxLeaseDuration, else a day', () => {
    expect(expectedHoldMs(lease('90m'), pool('8h'))).toBe(90 * MINUTE);
    expect(expectedHoldMs(lease(), pool('8h'))).toBe(8 * HOUR);
    expect(expectedHoldMs(lease(), pool())).toBe(24 * HOUR);
  });

  it('keeps claimed instances in view and holds back only unclaimed ones that fail', () => {
    const claimedButStale = instance('e', { status: 'True', checkedAt: NOW - HOUR, claimed: true });
    const failing = instance('f', { status: 'False' });
    const fine = instance('g', { status: 'True' });
    const { offered, heldBack } = gateInstances(
      [claimedButStale, failing, fine],
      lease(),
      pool(),
      NOW,
      MAX_AGE,
    );
    expect(offered.map((i) => i.metadata.name)).toEqual(['e', 'g']);
    expect(heldBack.map((h) => h.instance.metadata.name)).toEqual(['f']);
  });
});
