import type { BackoffPolicy } from './backoff.js';
import { backoffDelay } from './backoff.js';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { RuntimeMetrics } from './metrics.js';

export interface WorkQueueOptions {
  name: string;
  clock?: Clock;
  /** Per-key retry backoff after errors; reset by forget(). */
  backoff?: BackoffPolicy;
  metrics?: RuntimeMetrics;
}

/** The longest delay a Node.js timer can hold (2^31−1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const DEFAULT_RETRY_BACKOFF: BackoffPolicy = { baseMs: 5, maxMs: 5 * 60_000 };

/**
 * A queue of object keys with the guarantees controllers rely on: a key waiting to be processed
 * is held once however often it is added; a key is never handed to two workers at once (added
 * while processing, it is handed out again after done()); delayed adds; per-key exponential
 * backoff for retries.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly clock: Clock;
  private readonly backoff: BackoffPolicy;
  private shuttingDown = false;

  constructor(private readonly options: WorkQueueOptions) {
    this.clock = options.clock ?? systemClock;
    this.backoff = options.backoff ?? DEFAULT_RETRY_BACKOFF;
  }

  get length(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    this.options.metrics?.queueAdds.inc({ controller: this.options.name });
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Adds the key after `ms`; an earlier pending delayed add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    this.arm(key, at);
  }

  /**
   * A timer for the delayed add at `at`. Node turns a delay above MAX_TIMER_MS into 1 ms, so a
   * longer one waits in steps: each step that ends early arms the next, and only the last adds.
   */
  private arm(key: string, at: number): void {
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now()));
    const timer = this.clock.setTimeout(() => {
      if (this.clock.now() < at) return this.arm(key, at);
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /** Adds the key after its next backoff delay (the n-th failure waits base·2^(n−1)). */
  addRateLimited(key: string): void {
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    this.options.metrics?.queueRetries.inc({ controller: this.options.name });
    this.addAfter(key, backoffDelay(this.backoff, attempt));
  }

  /** Resets the key's backoff (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, waiting for one; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the key processed; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.enqueue(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) this.clock.clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  private enqueue(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.take(key));
    else this.queue.push(key);
    this.updateDepth();
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    const addedAt = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (addedAt !== undefined) {
      this.options.metrics?.queueLatency.observe(
        { controller: this.options.name },
        (this.clock.now() - addedAt) / 1000,
      );
    }
    this.updateDepth();
    return key;
  }

  private updateDepth(): void {
    this.options.metrics?.queueDepth.set({ controller: this.options.name }, this.queue.length);
  }
}
