import { describe, expect, it } from '@jest/globals';
import type { ClusterLease, ClusterPool } from '../api/resources.js';
import { formatSeconds, leaseState, poolHold } from './wait-progress.js';

const condition = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

describe('progress lines', () => {
  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [22, '22nd'],
  ])('puts queue position %i as %s', (position, text) => {
    const lease = {
      spec: { poolRef: { name: 'p' } },
      status: { phase: 'Pending', queuePosition: position },
    } as ClusterLease;
    expect(leaseState(lease)).toBe(`Pending, ${text} in the queue of pool "p"`);
  });

  it('says what holds a pool back', () => {
    const pool = {
      spec: { maxSize: 2 },
      status: {
        conditions: [
          condition('CapacityAvailable', 'False', 'AtCapacity', 'pool is at maxSize (2)'),
          condition('ProvisioningAllowed', 'True', 'NamespaceEnabled', 'ok'),
        ],
      },
    } as ClusterPool;
    expect(poolHold(pool)).toBe('AtCapacity: pool is at maxSize (2)');
  });

  it('says when the stream a pool follows holds it back', () => {
    const message =
      'VersionStream "ocp-4.19" does not exist; the pool creates no instance until it does';
    const pool = {
      spec: { maxSize: 2 },
      status: {
        conditions: [condition('VersionStreamResolved', 'False', 'VersionStreamNotFound', message)],
      },
    } as ClusterPool;
    expect(poolHold(pool)).toBe(`VersionStreamNotFound: ${message}`);
  });

  it('formats waiting time', () => {
    expect(formatSeconds(7)).toBe('7s');
    expect(formatSeconds(125)).toBe('2m05s');
  });
});
