import type { Logger } from 'pino';
import { isConflict } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { BackoffPolicy } from '../../../operator/runtime/backoff.js';
import { WorkQueue } from '../../../operator/runtime/work-queue.js';

/** What a pass asks for next: nothing (the next event), or another pass after a delay. */
export type PassResult = { requeueAfterMs?: number } | void;

/** A simulated platform controller: the kinds it follows, and one pass for a key. */
export interface SimulatedControllerSpec {
  name: string;
  /** The kind it acts on: an event of one of its objects queues that object's key. */
  forType: ResourceType;
  /** Kinds whose objects queue the keys of their owners of `forType` (owner references). */
  owns?: ResourceType[];
  /** Other kinds, with the keys an event of one of their objects queues. */
  watches?: { type: ResourceType; map: (object: KubeObject) => string[] }[];
  /** One pass for a key (`namespace/name`); throwing retries the key with backoff. */
  reconcile: (key: string) => Promise<PassResult>;
}

export interface SimulatedControllerOptions {
  workers: number;
  retryBackoff?: BackoffPolicy;
  logger: Logger;
}

/**
 * A work queue of keys drained by a few workers that run the controller's passes, as the real
 * controllers' loops do: a key is never in two passes at once, a failed pass is retried with
 * per-key backoff, and a pass may ask for another after a delay.
 */
export class SimulatedController {
  private readonly queue: WorkQueue;
  private workers: Promise<void>[] = [];

  constructor(
    private readonly spec: SimulatedControllerSpec,
    private readonly options: SimulatedControllerOptions,
  ) {
    this.queue = new WorkQueue({ name: spec.name, backoff: options.retryBackoff });
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    if (this.workers.length > 0) return;
    this.workers = Array.from({ length: this.options.workers }, () => this.work());
  }

  /** Takes no more keys and waits for the passes under way. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      await this.pass(key);
      this.queue.done(key);
    }
  }

  private async pass(key: string): Promise<void> {
    try {
      const result = (await this.spec.reconcile(key)) ?? {};
      this.queue.forget(key);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      this.queue.addRateLimited(key);
      const line = { err: error, controller: this.spec.name, key };
      // A conflict is optimistic concurrency at work: the retry reads the newer version.
      if (isConflict(error)) this.options.logger.debug(line, 'Simulated pass met a newer version');
      else this.options.logger.warn(line, 'Simulated pass failed; retrying with backoff');
    }
  }
}
