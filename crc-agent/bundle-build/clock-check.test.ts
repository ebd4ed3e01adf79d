import { describe, expect, it } from '@jest/globals';
import { clockProblem } from './clock-check.js';

describe('clockProblem', () => {
  const real = Date.parse('2026-12-01T18:00:00Z');
  it('accepts a clock within the tolerance of real time plus the offset', () => {
    expect(clockProblem(real / 1000 - 86_400 + 30, real, -86_400, 60)).toBeUndefined();
    expect(clockProblem(real / 1000 - 50, real, 0, 60)).toBeUndefined();
  });
  it('says how far off a clock is that did not move', () => {
    expect(clockProblem(real / 1000, real, -86_400, 900)).toBe(
      'the guest clock reads 2026-12-01T18:00:00.000Z, 0s from real time, where -86400s (±900s) was expected',
    );
  });
});
