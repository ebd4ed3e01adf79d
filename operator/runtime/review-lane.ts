import type { TokenBucket } from './token-bucket.js';

/**
 * Admission to a kind of work that costs API requests: at most `maxInFlight` at once and, with a
 * bucket, at most its rate. What is not admitted is refused at once, never queued: a queue would
 * let a flood hold callers (and their connections) for as long as it lasts.
 */
export class ReviewLane {
  private inFlight = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly bucket?: TokenBucket,
  ) {}

  /** Takes a place in the lane; false (and nothing taken) when it is full or out of tokens. */
  tryEnter(): boolean {
    if (this.inFlight >= this.maxInFlight) return false;
    if (this.bucket && !this.bucket.tryTake()) return false;
    this.inFlight++;
    return true;
  }

  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** When to come back, for a Retry-After header: whole seconds, at least one. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.bucket?.msUntilNext() ?? 0) / 1000));
  }
}
