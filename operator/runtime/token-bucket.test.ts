import { describe, expect, it } from '@jest/globals';
import type { Clock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

function clockAt(start: number): Clock & { time: number } {
  const clock = {
    time: start,
    now: () => clock.time,
    setTimeout: (): NodeJS.Timeout => {
      throw new Error('the bucket never waits');
    },
    clearTimeout: (): void => undefined,
  };
  return clock;
}

describe('TokenBucket', () => {
  it('gives its capacity at once, then its rate, and never more than its capacity', () => {
    const clock = clockAt(1_000_000);
    const bucket = new TokenBucket(3, 2, clock);
    expect([1, 2, 3, 4].map(() => bucket.tryTake())).toEqual([true, true, true, false]);
    expect(bucket.msUntilNext()).toBe(500);
    clock.time += 500;
    expect([bucket.tryTake(), bucket.tryTake()]).toEqual([true, false]);
    clock.time += 60_000;
    expect([1, 2, 3, 4].map(() => bucket.tryTake())).toEqual([true, true, true, false]);
  });

  it('refills nothing when the clock goes back', () => {
    const clock = clockAt(1_000_000);
    const bucket = new TokenBucket(1, 1, clock);
    expect(bucket.tryTake()).toBe(true);
    clock.time -= 10_000;
    expect(bucket.tryTake()).toBe(false);
    clock.time += 1_000;
    expect(bucket.tryTake()).toBe(true);
  });
});
