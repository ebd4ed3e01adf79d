import { LruMap } from './lru-map.js';

/** How a check ended: its value, or why it failed. */
export type CheckOutcome<T> = { ok: true; value: T } | { ok: false; error: Error };

/** What `take` found: the outcome of a finished check, or why there is none yet. */
export type CheckTake<T> =
  | { outcome: CheckOutcome<T> }
  /** started: a check begins now; running: one is under way; full: the cap is reached. */
  | { pending: 'started' | 'running' | 'full' };

export interface OffPathChecksOptions {
  /** For the deadline's message ("guest API check"). */
  what: string;
  /** Checks under way at most; more wait for a pass after one has ended. */
  limit: number;
  /** A check that has not ended by then counts as failed and frees its place. */
  deadlineMs: number;
  /** Called with the key once its check has ended: queues the key's next pass. */
  onDone: (key: string) => void;
  /** Finished outcomes kept for their next pass at most (those of deleted objects age out). */
  maxKept?: number;
}

interface Finished<T> {
  fingerprint: string;
  outcome: CheckOutcome<T>;
}

/**
 * Checks that wait on something slow (a guest's API), run off the reconcile path so that no
 * worker waits with them (docs/reference/naming.md#waits-off-the-workers). A pass asks `take` for
 * its key: it gets the outcome of the check that has ended since the previous pass (once), or
 * starts one and gets none; the check's end queues the key's next pass. At most `limit` run at
 * once, each until its deadline, and at most `maxKept` outcomes wait for their pass: a thousand
 * guests that never answer hold `limit` connections, not a thousand.
 */
export class OffPathChecks<T> {
  private readonly running = new Set<string>();
  private readonly finished: LruMap<Finished<T>>;
  private readonly failures: LruMap<string>;

  constructor(private readonly options: OffPathChecksOptions) {
    const kept = options.maxKept ?? 4096;
    this.finished = new LruMap(kept);
    this.failures = new LruMap(kept);
  }

  /** Checks under way now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Why the last check of `key` failed, until one succeeds: what a pass shows while it waits. */
  lastFailure(key: string): string | undefined {
    return this.failures.get(key);
  }

  /**
   * The outcome of the check of `key` that has ended, if it checked the same thing
   * (`fingerprint`: the object's UID and what the check uses); else starts `run` unless a check
   * of the key is under way or the cap is reached.
   */
  take(key: string, fingerprint: string, run: () => Promise<T>): CheckTake<T> {
    const finished = this.finished.get(key);
    this.finished.delete(key);
    if (finished && finished.fingerprint === fingerprint) return { outcome: finished.outcome };
    if (this.running.has(key)) return { pending: 'running' };
    if (this.running.size >= this.options.limit) return { pending: 'full' };
    this.running.add(key);
    void this.settle(run).then((outcome) => {
      this.running.delete(key);
      this.finished.set(key, { fingerprint, outcome });
      if (outcome.ok) this.failures.delete(key);
      else this.failures.set(key, outcome.error.message);
      this.options.onDone(key);
    });
    return { pending: 'started' };
  }

  /**
   * The check's outcome, by its deadline at the latest. A wall-clock timer: the check waits on
   * the network, whose time is the wall's.
   */
  private async settle(run: () => Promise<T>): Promise<CheckOutcome<T>> {
    const { deadlineMs, what } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} did not end within ${deadlineMs / 1000}s`)),
        deadlineMs,
      );
      timer.unref();
    });
    try {
      return { ok: true, value: await Promise.race([run(), deadline]) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    } finally {
      clearTimeout(timer);
    }
  }
}
