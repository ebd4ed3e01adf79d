import type { ApiClient, WatchEvent } from '../../client/kube/api-client.js';
import { isGone } from '../../client/kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import { objectKey } from '../kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { typeName } from '../../client/kube/resource-type.js';
import type { BackoffPolicy } from './backoff.js';
import { backoffDelay } from './backoff.js';
import type { Clock } from './clock.js';
import { sleep, systemClock } from './clock.js';
import type { Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';

export interface InformerHandlers<T> {
  onAdd?(object: T): void;
  onUpdate?(previous: T, current: T): void;
  onDelete?(object: T): void;
}

export interface InformerOptions {
  type: ResourceType;
  /** Watch one namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  client: ApiClient;
  logger: Logger;
  metrics: RuntimeMetrics;
  clock?: Clock;
  /** Backoff between failed attempts to list or watch. */
  backoff?: BackoffPolicy;
  /** The server ends each watch after a random time in [min, 2·min) seconds, spreading relists. */
  watchTimeoutSeconds?: number;
  /** A stream that delivers nothing (not even a bookmark) for this long past its timeout is abandoned. */
  watchdogGraceMs?: number;
  /** Page size of the initial and recovery lists. */
  pageSize?: number;
  /**
   * Lists and watches only the objects' metadata, and keeps of it only what names an object
   * (name, namespace, UID, resourceVersion): annotations may quote an object's data
   * (kubectl's last-applied-configuration), so not even they are held.
   */
  metadataOnly?: boolean;
}

export const DEFAULT_WATCH_BACKOFF: BackoffPolicy = { baseMs: 200, maxMs: 30_000, jitter: 0.2 };

class WatchdogExpired extends Error {}

/**
 * A cache of one kind, kept current by list-then-watch: lists (in pages), then watches from the
 * list's resourceVersion; resumes a broken watch from the last seen resourceVersion; relists on
 * 410 Gone; retries failures with capped, jittered backoff; abandons a silent stream by watchdog.
 * Handlers see every change, and a relist turns into the adds, updates and deletes it implies.
 */
export class Informer<T extends KubeObject> {
  private readonly store = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly clock: Clock;
  private readonly stopController = new AbortController();
  private resourceVersion: string | undefined;
  private running: Promise<void> | undefined;
  private markSynced: () => void = () => undefined;
  private listed = false;
  /** Resolves once the first list has been loaded into the cache. */
  readonly synced: Promise<void>;

  constructor(private readonly options: InformerOptions) {
    this.clock = options.clock ?? systemClock;
    this.synced = new Promise((resolve) => (this.markSynced = resolve));
  }

  /** Whether the first list has been loaded into the cache. */
  get hasSynced(): boolean {
    return this.listed;
  }

  get name(): string {
    return (
      typeName(this.options.type) + (this.options.namespace ? ` in ${this.options.namespace}` : '')
    );
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
    // A handler added after the first list still learns of every cached object.
    for (const object of this.store.values()) handlers.onAdd?.(object);
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  list(filter?: (object: T) => boolean): T[] {
    if (!filter) return [...this.store.values()];
    // One array of the matches, not a copy of the whole cache first: controllers list often.
    const matches: T[] = [];
    for (const object of this.store.values()) if (filter(object)) matches.push(object);
    return matches;
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        await this.watchOnce();
        failures = 0;
        this.restarted('expired');
      } catch (error) {
        if (this.stopped) break;
        if (isGone(error)) {
          this.resourceVersion = undefined;
          this.restarted('gone');
          continue;
        }
        failures += 1;
        const reason = error instanceof WatchdogExpired ? 'watchdog' : 'error';
        this.restarted(reason);
        const delay = backoffDelay(this.options.backoff ?? DEFAULT_WATCH_BACKOFF, failures);
        this.options.logger.warn(
          { resource: this.name, err: error, retryInMs: delay },
          `Watch of ${this.name} failed; retrying`,
        );
        await sleep(this.clock, delay, this.stopController.signal);
      }
    }
  }

  private restarted(reason: string): void {
    this.options.metrics.watchRestarts.inc({ resource: typeName(this.options.type), reason });
  }

  private async relist(): Promise<void> {
    const seen = new Map<string, T>();
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.options.client.list<T>(this.options.type, {
        namespace: this.options.namespace,
        labelSelector: this.options.labelSelector,
        limit: this.options.pageSize ?? 500,
        continue: continueToken,
        metadataOnly: this.options.metadataOnly,
      });
      if (!continueToken) resourceVersion = page.resourceVersion;
      for (const item of page.items) seen.set(objectKey(item), item);
      continueToken = page.continue;
    } while (continueToken);

    for (const [key, previous] of this.store) {
      if (!seen.has(key)) {
        this.store.delete(key);
        this.dispatch((h) => h.onDelete?.(previous));
      }
    }
    for (const [key, object] of seen) this.apply(key, object);
    this.resourceVersion = resourceVersion;
    this.listed = true;
    this.markSynced();
  }

  private apply(key: string, received: T): void {
    const previous = this.store.get(key);
    const object = this.options.metadataOnly ? nameOnly(received, this.options.type) : received;
    // managedFields are often the bulk of an object and no controller reads them. An update sent
    // without them leaves the server's record as it is. controller-runtime's cache does the same
    // (TransformStripManagedFields, pkg/cache/cache.go); see
    // docs/operations/memory.md#where-the-memory-goes.
    delete (object.metadata as { managedFields?: unknown } | undefined)?.managedFields;
    this.store.set(key, object);
    if (!previous) this.dispatch((h) => h.onAdd?.(object));
    else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
      this.dispatch((h) => h.onUpdate?.(previous, object));
    }
  }

  private async watchOnce(): Promise<void> {
    const base = this.options.watchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(base + Math.random() * base);
    const watchdogMs = timeoutSeconds * 1000 + (this.options.watchdogGraceMs ?? 30_000);
    const stream = new AbortController();
    // Also aborted when the informer stops (even if it stopped before this watch began).
    const signal = AbortSignal.any([stream.signal, this.stopController.signal]);
    let expired = false;
    let watchdog = this.clock.setTimeout(() => ((expired = true), stream.abort()), watchdogMs);
    try {
      await this.options.client.watch<T>(
        this.options.type,
        {
          namespace: this.options.namespace,
          labelSelector: this.options.labelSelector,
          resourceVersion: this.resourceVersion ?? '0',
          timeoutSeconds,
          metadataOnly: this.options.metadataOnly,
        },
        (event) => {
          this.clock.clearTimeout(watchdog);
          watchdog = this.clock.setTimeout(() => ((expired = true), stream.abort()), watchdogMs);
          this.handleEvent(event);
        },
        signal,
      );
    } catch (error) {
      if (expired)
        throw new WatchdogExpired(`no data from the watch of ${this.name} for ${watchdogMs} ms`);
      throw error;
    } finally {
      this.clock.clearTimeout(watchdog);
    }
  }

  private handleEvent(event: WatchEvent<T>): void {
    const resourceVersion = event.object.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      this.resourceVersion = resourceVersion;
      return;
    }
    const key = objectKey(event.object);
    if (event.type === 'DELETED') {
      const previous = this.store.get(key) ?? event.object;
      this.store.delete(key);
      this.dispatch((h) => h.onDelete?.(previous));
    } else {
      this.apply(key, event.object);
    }
    this.resourceVersion = resourceVersion;
  }

  private dispatch(call: (handlers: InformerHandlers<T>) => void): void {
    for (const handlers of this.handlers) {
      try {
        call(handlers);
      } catch (error) {
        this.options.logger.error({ resource: this.name, err: error }, 'Event handler failed');
      }
    }
  }
}

/** What a metadata-only informer keeps of an object: what names it, and its version. */
function nameOnly<T extends KubeObject>(object: T, type: ResourceType): T {
  const { name, namespace, uid, resourceVersion, deletionTimestamp } = object.metadata ?? {};
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: { name, namespace, uid, resourceVersion, deletionTimestamp },
  } as T;
}
