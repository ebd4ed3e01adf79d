import type { Clock } from './clock.js';

/**
 * A token bucket: up to `capacity` takes at once, then `perSecond` on average. It starts full and
 * refills continuously by the clock (a clock that goes back refills nothing).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.tokens = capacity;
    this.at = clock.now();
  }

  /** Takes a token if there is one. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** How long until a token is there (0 if one is). */
  msUntilNext(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.at);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.perSecond) / 1000);
    this.at = now;
  }
}
