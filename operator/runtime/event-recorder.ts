import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../kube/objects.js';
import { EVENTS } from '../../client/api/core-resources.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export type EventType = 'Normal' | 'Warning';

/** Where controllers record the Kubernetes Events people read with `kubectl describe`. */
export interface EventSink {
  /** Queues the event; resolves once it has been sent (or given up on). Never rejects. */
  record(object: KubeObject, type: EventType, reason: string, message: string): Promise<void>;
}

interface CoreEvent extends KubeObject {
  count?: number;
}

const COMPONENT = 'guestcluster-operator';
const MAX_REMEMBERED = 4096;
/** Events waiting to be sent; beyond this the oldest are dropped (and that is logged). */
const MAX_QUEUED = 1000;

interface PendingEvent {
  object: KubeObject;
  type: EventType;
  reason: string;
  message: string;
  sent: () => void;
}

/**
 * Records Kubernetes Events (core/v1, what `kubectl describe` shows) on the objects people look
 * at. A repeat of the same event on the same object bumps its count instead of adding another.
 * Events go out one at a time from a queue, as client-go's broadcaster sends them: a burst of
 * transitions then does not compete with the controllers' own writes. Failing to record is
 * logged and never fails the caller.
 */
export class EventRecorder implements EventSink {
  private readonly recorded = new Map<string, { name: string; namespace: string; count: number }>();
  private readonly queue: PendingEvent[] = [];
  private sending = false;

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly instance: string,
  ) {}

  /** Queues the event; resolves once it has been sent (or given up on). */
  record(object: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    return new Promise((sent) => {
      this.queue.push({ object, type, reason, message, sent });
      const dropped = this.queue.length > MAX_QUEUED ? this.queue.shift() : undefined;
      if (dropped) {
        this.logger.warn({ reason: dropped.reason }, 'Dropped an event: the event queue is full');
        dropped.sent();
      }
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        await this.send(next.object, next.type, next.reason, next.message);
        next.sent();
      }
    } finally {
      this.sending = false;
    }
  }

  private async send(
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const meta = object.metadata ?? {};
    const namespace = meta.namespace ?? 'default';
    const dedupKey = [meta.uid, type, reason, message].join('\u0000');
    const now = new Date(this.clock.now()).toISOString();
    try {
      const previous = this.recorded.get(dedupKey);
      if (previous) {
        previous.count += 1;
        await this.client.patch(
          EVENTS,
          { name: previous.name, namespace: previous.namespace },
          { count: previous.count, lastTimestamp: now },
        );
        return;
      }
      const created = await this.client.create<CoreEvent>(EVENTS, {
        metadata: { generateName: `${meta.name ?? 'object'}.`, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: meta.name,
          namespace: meta.namespace,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        reportingInstance: this.instance,
      } as CoreEvent);
      this.recorded.set(dedupKey, { name: created.metadata?.name ?? '', namespace, count: 1 });
      // Remember a bounded number of events: the oldest are forgotten (a repeat then starts a new one).
      const oldest = this.recorded.keys().next().value;
      if (this.recorded.size > MAX_REMEMBERED && oldest !== undefined) this.recorded.delete(oldest);
    } catch (error) {
      this.logger.warn(
        { err: error, reason },
        `Failed to record event on ${object.kind} ${meta.name}`,
      );
    }
  }
}
