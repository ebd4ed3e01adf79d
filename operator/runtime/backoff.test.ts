import { describe, expect, it } from '@jest/globals';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const policy = { baseMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 60].map((attempt) => backoffDelay(policy, attempt))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('spreads delays over the jitter range', () => {
    const policy = { baseMs: 1000, maxMs: 1000, jitter: 0.2 };
    expect(backoffDelay(policy, 1, () => 0)).toBe(800);
    expect(backoffDelay(policy, 1, () => 0.5)).toBe(1000);
    expect(backoffDelay(policy, 1, () => 1)).toBe(1200);
  });
});
