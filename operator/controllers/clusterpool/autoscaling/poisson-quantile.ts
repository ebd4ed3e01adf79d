/**
 * The smallest k with P(N ≤ k) ≥ `probability` for N Poisson-distributed with mean `mean`: how
 * many spares cover the arrivals of one lead time but for a chance of 1 − probability
 * (docs/reference/kinds.md#adaptive-warm-spares). In logarithms, so that a large mean, whose
 * e^−mean underflows, still has an answer.
 */
export function poissonQuantile(mean: number, probability: number): number {
  if (!(mean > 0) || !(probability > 0)) return 0;
  const target = Math.log(Math.min(probability, 1 - 1e-12));
  const limit = Math.ceil(10 * mean + 100);
  let logTerm = -mean;
  let logCumulative = logTerm;
  let k = 0;
  while (logCumulative < target && k < limit) {
    k += 1;
    logTerm += Math.log(mean / k);
    logCumulative = logAdd(logCumulative, logTerm);
  }
  return k;
}

function logAdd(a: number, b: number): number {
  const high = Math.max(a, b);
  return high + Math.log(Math.exp(a - high) + Math.exp(b - high));
}
