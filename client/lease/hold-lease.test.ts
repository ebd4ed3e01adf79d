import { describe, expect, it } from '@jest/globals';
import { capHold } from './hold-lease.js';

const MINUTE = 60_000;

describe('the hold of a failed job', () => {
  it('is what was asked when the pool sets no limit', () => {
    expect(capHold(30 * MINUTE, 50 * MINUTE, {})).toEqual({ hold: 30 * MINUTE });
  });

  it("is cut to the pool's maxHoldDuration", () => {
    expect(
      capHold(30 * MINUTE, 5 * MINUTE, { maxHoldMs: 10 * MINUTE, maxHoldText: '10m' }),
    ).toEqual({ hold: 10 * MINUTE, shortenedBy: "the pool's spec.maxHoldDuration (10m)" });
  });

  it('ends by maxLeaseDuration plus maxHoldDuration from binding, and is none past it', () => {
    const limits = {
      maxHoldMs: 30 * MINUTE,
      maxHoldText: '30m',
      maxTtlMs: 150 * MINUTE,
      maxTtlText: 'spec.maxLeaseDuration 2h plus spec.maxHoldDuration 30m',
    };
    const shortenedBy =
      "the pool's spec.maxLeaseDuration 2h plus spec.maxHoldDuration 30m, counted from binding";
    expect(capHold(30 * MINUTE, 100 * MINUTE, limits)).toEqual({ hold: 30 * MINUTE });
    expect(capHold(30 * MINUTE, 140 * MINUTE, limits)).toEqual({ hold: 10 * MINUTE, shortenedBy });
    expect(capHold(30 * MINUTE, 160 * MINUTE, limits)).toEqual({ hold: 0, shortenedBy });
  });
});
