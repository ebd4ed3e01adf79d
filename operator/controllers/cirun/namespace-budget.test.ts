import { describe, expect, it } from '@jest/globals';
import { NamespaceBudget } from './namespace-budget.js';

const HOUR = 3_600_000;

describe("a namespace's request budget", () => {
  it('allows so many requests per window, per namespace, from its first request', () => {
    const budget = new NamespaceBudget(2, HOUR);
    expect(budget.take('a', 1000)).toBe(true);
    expect(budget.take('a', 2000)).toBe(true);
    expect(budget.exhaustedUntil('a', 3000)).toBe(1000 + HOUR);
    expect(budget.take('a', 3000)).toBe(false);
    expect(budget.take('b', 3000)).toBe(true);
    expect(budget.exhaustedUntil('a', 1000 + HOUR)).toBeUndefined();
    expect(budget.take('a', 1000 + HOUR)).toBe(true);
  });

  it('forgets the windows that have ended', () => {
    const budget = new NamespaceBudget(1, HOUR);
    budget.take('a', 0);
    budget.forgetEnded(HOUR);
    expect(budget.exhaustedUntil('a', HOUR - 1)).toBeUndefined();
  });
});
