import { isConflict } from '../../client/kube/api-error.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';
import type { BackoffPolicy } from './backoff.js';

/**
 * What a reconcile asks for next: nothing (wait for the next event), another pass after a delay,
 * or another pass at a moment on the runtime clock (a deadline). A deadline is turned into a delay
 * only when the pass is over, so time that moved on during the pass is not waited twice.
 */
export interface ReconcileResult {
  requeueAfterMs?: number;
  requeueAt?: number;
}

/** The sooner of two requests for the next pass (either may ask for none). */
export function sooner(a: ReconcileResult, b: ReconcileResult): ReconcileResult {
  const at = Math.min(a.requeueAt ?? Infinity, b.requeueAt ?? Infinity);
  const after = Math.min(a.requeueAfterMs ?? Infinity, b.requeueAfterMs ?? Infinity);
  return {
    ...(at !== Infinity ? { requeueAt: at } : {}),
    ...(after !== Infinity ? { requeueAfterMs: after } : {}),
  };
}

export interface ReconcileContext {
  /** Carries `controller` and `key` on every line. */
  logger: Logger;
}

/**
 * Reconciles the object named by `key` ("namespace/name") towards its desired state. Level-based
 * and idempotent; reads from the cache (not found: done). Throwing retries the key with per-key
 * exponential backoff. Input that no retry can fix is no error: the reconcile says so in the
 * object's status and an Event, and returns normally (ADR 0022).
 */
export type Reconciler = (
  key: string,
  context: ReconcileContext,
) => Promise<ReconcileResult | void>;

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  workers: number;
  logger: Logger;
  metrics: RuntimeMetrics;
  clock: Clock;
  retryBackoff?: BackoffPolicy;
  /** Events wait this long before their key is queued, so that a burst of them gives one pass. */
  coalesceMs?: number;
}

/** A work queue drained by a number of workers that call the reconciler. */
export class Controller {
  readonly queue: WorkQueue;
  private workers: Promise<void>[] = [];
  /** Keys waiting out the coalescing window; wall-clock timers, as a burst of events is no business time. */
  private readonly coalescing = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: ControllerOptions) {
    this.queue = new WorkQueue({
      name: options.name,
      clock: options.clock,
      backoff: options.retryBackoff,
      metrics: options.metrics,
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** Queues the key for an event; within the coalescing window, once for all events of the window. */
  enqueue(key: string): void {
    const window = this.options.coalesceMs;
    if (!window) return this.queue.add(key);
    if (this.coalescing.has(key)) return;
    const timer = setTimeout(() => {
      this.coalescing.delete(key);
      this.queue.add(key);
    }, window);
    timer.unref();
    this.coalescing.set(key, timer);
  }

  start(): void {
    if (this.workers.length > 0) return;
    this.workers = Array.from({ length: this.options.workers }, () => this.work());
  }

  /** Stops taking keys and waits for the reconciles in progress to finish. */
  async stop(): Promise<void> {
    for (const timer of this.coalescing.values()) clearTimeout(timer);
    this.coalescing.clear();
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      await this.process(key);
      this.queue.done(key);
    }
  }

  private async process(key: string): Promise<void> {
    const { name, metrics, clock } = this.options;
    const logger = this.options.logger.child({ controller: name, key });
    const started = clock.now();
    metrics.activeWorkers.inc({ controller: name });
    try {
      const result = (await this.options.reconcile(key, { logger })) ?? {};
      this.queue.forget(key);
      const delay = Math.min(
        result.requeueAfterMs ?? Infinity,
        result.requeueAt === undefined ? Infinity : result.requeueAt - clock.now(),
      );
      if (delay !== Infinity) {
        this.queue.addAfter(key, delay);
        metrics.reconcileTotal.inc({ controller: name, result: 'requeue' });
      } else {
        metrics.reconcileTotal.inc({ controller: name, result: 'success' });
      }
    } catch (error) {
      if (isConflict(error)) {
        // Optimistic concurrency at work: the object changed after the cache showed it (often by
        // this controller's own previous write). The retry reads the newer version; nothing in
        // it is for a person to act on.
        this.queue.addRateLimited(key);
        metrics.reconcileTotal.inc({ controller: name, result: 'conflict' });
        logger.debug({ err: error }, 'Reconcile met a newer version of an object; retrying');
      } else {
        metrics.reconcileErrors.inc({ controller: name });
        this.queue.addRateLimited(key);
        metrics.reconcileTotal.inc({ controller: name, result: 'error' });
        logger.warn(
          { err: error, retries: this.queue.numRequeues(key) },
          'Reconcile failed; retrying with backoff',
        );
      }
    } finally {
      metrics.activeWorkers.dec({ controller: name });
      metrics.reconcileDuration.observe({ controller: name }, (clock.now() - started) / 1000);
    }
  }
}
