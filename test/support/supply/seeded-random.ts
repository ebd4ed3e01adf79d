/**
 * A seeded source of random numbers (mulberry32) and the few distributions the replayed CI week
 * draws from, so that one seed always gives the same week (docs/supply-benchmark.md#method).
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [low, high]. */
  integer(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Log-normal given its median and its 95th percentile. */
  logNormal(median: number, p95: number): number {
    const sigma = Math.log(p95 / median) / 1.6449;
    return median * Math.exp(sigma * this.normal());
  }

  /** Poisson with mean `mean` (Knuth's method; the means here are small). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean);
    let k = 0;
    let product = this.next();
    while (product > limit) {
      k += 1;
      product *= this.next();
    }
    return k;
  }
}
