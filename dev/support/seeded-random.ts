/**
 * A seeded source of random numbers (mulberry32) and the distributions drawn from it, so that one
 * seed always gives the same run: a soak's schedule (docs/soak.md#reproducing-a-run), a replayed
 * CI week (docs/supply-benchmark.md#method), a bench's arrivals.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A number in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** A whole number in [min, max]. */
  integer(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** An exponentially distributed wait of the given mean: the gaps of a Poisson process. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** One of the items, each as likely as its weight. */
  weighted<T>(items: readonly { item: T; weight: number }[]): T {
    const total = items.reduce((sum, entry) => sum + entry.weight, 0);
    let point = this.next() * total;
    for (const entry of items) {
      point -= entry.weight;
      if (point < 0) return entry.item;
    }
    return items[items.length - 1]!.item;
  }

  /** One of the items, or undefined for none. */
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.next() * items.length)];
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
