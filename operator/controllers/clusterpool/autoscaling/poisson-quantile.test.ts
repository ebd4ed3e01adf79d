import { poissonQuantile } from './poisson-quantile.js';

/** The quantile by summing the probabilities directly, for small means. */
function direct(mean: number, probability: number): number {
  let term = Math.exp(-mean);
  let sum = term;
  let k = 0;
  while (sum < probability) {
    k += 1;
    term *= mean / k;
    sum += term;
  }
  return k;
}

describe('poissonQuantile', () => {
  it('matches the summed distribution', () => {
    for (const mean of [0.1, 0.5, 1, 2.5, 6.4, 12, 40])
      for (const p of [0.5, 0.9, 0.95, 0.99])
        expect(poissonQuantile(mean, p)).toBe(direct(mean, p));
  });

  it('answers for a mean whose e^−mean underflows', () => {
    // Mean 1000: about 1000 + 1.645 × √1000.
    expect(poissonQuantile(1000, 0.95)).toBeGreaterThanOrEqual(1050);
    expect(poissonQuantile(1000, 0.95)).toBeLessThanOrEqual(1054);
  });

  it('is 0 for no demand', () => {
    expect(poissonQuantile(0, 0.95)).toBe(0);
  });
});
