/**
 * A small seeded pseudo-random generator (mulberry32): the same seed gives the same soak schedule,
 * so a run that found a defect can be replayed (docs/soak.md#reproducing-a-run).
 */
export class Prng {
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
    return Math.floor(this.between(min, max + 1));
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
}
