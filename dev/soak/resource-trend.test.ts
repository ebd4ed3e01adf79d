import { describe, expect, it } from '@jest/globals';
import type { ResourceSample } from './resource-trend.js';
import { grows, resourceTrends, TREND_BOUNDS } from './resource-trend.js';

const MIB = 1024 * 1024;
/** A process sampled every 5 s for `minutes`, its RSS and fds given as functions of the minute. */
function life(
  pid: number,
  fromMs: number,
  minutes: number,
  rssMiB: (m: number) => number,
  fds: (m: number) => number,
): ResourceSample[] {
  return Array.from({ length: minutes * 12 + 1 }, (_, i) => {
    const m = i / 12;
    return { atMs: fromMs + m * 60_000, pid, rssBytes: rssMiB(m) * MIB, fds: fds(m) };
  });
}

describe('the operator resource trend', () => {
  it('judges a flat process flat, however high its warm-up went', () => {
    // Warms up to 150 MiB in the first half, then a garbage collector's saw-tooth around it.
    const samples = life(
      1,
      0,
      10,
      (m) => (m < 5 ? 50 + 20 * m : 150 + (Math.round(m * 12) % 2) * 8),
      () => 40,
    );
    const [trend] = resourceTrends(samples);
    expect(trend!.judged).toBe(true);
    expect(Math.abs(trend!.rssMiBPerMinute)).toBeLessThan(1);
    expect(grows(trend!)).toBe(false);
  });

  it('finds a leak of RSS or of descriptors in the second half', () => {
    const rss = resourceTrends(
      life(
        1,
        0,
        10,
        (m) => 100 + 8 * m,
        () => 40,
      ),
    )[0]!;
    expect(rss.rssMiBPerMinute).toBeCloseTo(8, 5);
    expect(grows(rss)).toBe(true);
    const fds = resourceTrends(
      life(
        1,
        0,
        10,
        () => 100,
        (m) => 40 + Math.floor(5 * m),
      ),
    )[0]!;
    expect(fds.fdsPerMinute).toBeGreaterThan(TREND_BOUNDS.fdsPerMinute);
    expect(grows(fds)).toBe(true);
  });

  it('starts a new baseline at each restart and does not judge a short life', () => {
    const samples = [
      ...life(
        1,
        0,
        2,
        (m) => 100 + 50 * m,
        () => 40,
      ),
      ...life(
        2,
        130_000,
        12,
        () => 120,
        () => 41,
      ),
    ];
    const [first, second] = resourceTrends(samples);
    expect(first).toMatchObject({ pid: 1, judged: false });
    expect(grows(first!)).toBe(false);
    expect(second).toMatchObject({ pid: 2, judged: true, rssMiBPerMinute: 0, fdsPerMinute: 0 });
  });
});
