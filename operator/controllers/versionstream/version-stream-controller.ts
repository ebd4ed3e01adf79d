import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { VersionStream } from '../../../client/api/resources.js';
import { VERSION_STREAMS } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { OperatorScope } from '../../operator-scope.js';
import { carriesScope } from '../../operator-scope.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { newestMirrorBundle } from './crc-mirror.js';
import type { HttpGetter } from './http-get.js';
import { httpGetter } from './http-get.js';
import type { StreamResolutionErrors } from './stream-metrics.js';
import {
  ERROR_REASONS,
  MOVED_EVENT,
  RESOLVED_CONDITION,
  ResolvedReason,
} from './stream-reasons.js';
import type { Resolution, StreamAnswer } from './stream-resolution.js';
import { resolveStream } from './stream-resolution.js';
import type { VersionStreamSettings } from './stream-settings.js';
import { channelOf, invalidSpec, withDefaults } from './stream-spec.js';
import { fetchUpdateGraph } from './update-service.js';
import { metaTime } from '../../../client/kube/meta-time.js';

type Stream = StoredCluster<VersionStream>;
type StreamStatus = NonNullable<VersionStream['status']>;

export const VERSION_STREAM_CONTROLLER = 'versionstream';

export interface VersionStreamControllerOptions {
  /** guestcluster_version_stream_resolution_errors_total; none when unset. */
  errors?: StreamResolutionErrors;
  http?: HttpGetter;
  random?: () => number;
}

/** When a stream is due again, for the spec it was checked with. */
interface Schedule {
  generation: number | undefined;
  dueAt: number;
  failures: number;
}

/**
 * Resolves VersionStreams (ADR 0029): each stream asks the update service for its channel's
 * graph and the CRC mirror for its bundles, every interval (jittered) and at once when its spec
 * changes; after a failure it retries with backoff and keeps its last good answer. A move is
 * told by a VersionStreamMoved Event.
 */
export class VersionStreamController {
  private readonly schedules = new Map<string, Schedule>();
  private readonly http: HttpGetter;
  private readonly random: () => number;

  constructor(
    private readonly ports: ControllerPorts,
    /** With the operator's scope: it resolves the streams that carry the scope's labels (all when unset). */
    private readonly settings: VersionStreamSettings & {
      crcBundleMirrorUrl: string;
      scope?: OperatorScope;
    },
    private readonly options: VersionStreamControllerOptions = {},
  ) {
    this.http = options.http ?? httpGetter(settings.requestTimeoutMs);
    this.random = options.random ?? Math.random;
  }

  registration(): ControllerRegistration {
    return {
      name: VERSION_STREAM_CONTROLLER,
      forType: VERSION_STREAMS,
      reconcile: (key) => this.reconcile(key),
    };
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const stream = (await this.ports.cache.read<VersionStream>(VERSION_STREAMS)).get(key);
    if (!stream || stream.metadata.deletionTimestamp) {
      this.schedules.delete(key);
      // A deleted stream's series go with it.
      for (const reason of ERROR_REASONS) this.options.errors?.remove({ stream: key, reason });
      return {};
    }
    if (!carriesScope(this.settings.scope, stream)) return {};
    const now = this.ports.clock.now();
    const schedule = this.schedules.get(key);
    const wait = waitFor(schedule, stream.metadata.generation, now);
    if (wait) return wait;
    return this.check(key, schedule, now);
  }

  /**
   * One check. The stream is read live: its previous answer (forward only) and resourceVersion
   * must be the latest, not a cache that may not have the last write yet.
   */
  private async check(
    key: string,
    schedule: Schedule | undefined,
    now: number,
  ): Promise<ReconcileResult> {
    const stream = await this.ports.client.getOrUndefined<VersionStream>(VERSION_STREAMS, key);
    if (!stream || stream.metadata.deletionTimestamp) return {};
    const generation = stream.metadata.generation;
    const spec = withDefaults(stream.spec);
    const invalid = invalidSpec(spec);
    if (invalid) return this.refuse(key, stream, invalid);
    const { updateServiceUrl, crcBundleMirrorUrl } = this.settings;
    const [graph, mirror] = await Promise.all([
      fetchUpdateGraph(this.http, updateServiceUrl, channelOf(spec), spec.arch),
      newestMirrorBundle(this.http, crcBundleMirrorUrl, spec.minor, spec.arch, spec.pin),
    ]);
    const { resolvedVersion, releaseImage, crcBundleVersion, observedGeneration } =
      stream.status ?? {};
    const previous: StreamAnswer = { resolvedVersion, releaseImage, crcBundleVersion };
    const resolution = resolveStream({
      spec,
      previous,
      specChanged: observedGeneration !== generation,
      graph,
      mirror,
    });
    const failures = resolution.reached ? 0 : (schedule?.failures ?? 0) + 1;
    const delay = resolution.reached
      ? backoffDelay(
          { baseMs: this.settings.intervalMs, maxMs: this.settings.intervalMs, jitter: 0.1 },
          1,
          this.random,
        )
      : backoffDelay(this.settings.backoff, failures, this.random);
    if (!resolution.reached)
      resolution.condition.message += `; asking again at ${metaTime(now + delay)}`;
    await this.record(stream, previous, resolution, now);
    // Counted once written: a write that fails repeats the whole check.
    for (const reason of resolution.errors) this.options.errors?.inc({ stream: key, reason });
    this.schedules.set(key, { generation, dueAt: now + delay, failures });
    return { requeueAfterMs: delay };
  }

  /** An invalid spec: nothing to ask until the spec changes. */
  private async refuse(key: string, stream: Stream, message: string): Promise<ReconcileResult> {
    const generation = stream.metadata.generation;
    await this.writeStatus(
      stream,
      { ...stream.status },
      {
        status: 'False',
        reason: ResolvedReason.InvalidSpec,
        message,
      },
    );
    this.options.errors?.inc({ stream: key, reason: ResolvedReason.InvalidSpec });
    this.schedules.set(key, { generation, dueAt: Infinity, failures: 0 });
    void this.ports.events.record(stream, 'Warning', ResolvedReason.InvalidSpec, message);
    return {};
  }

  /** Writes the answer and condition, and tells of a move or of losing the update service. */
  private async record(
    stream: Stream,
    previous: StreamAnswer,
    resolution: Resolution,
    now: number,
  ): Promise<void> {
    const { answer, condition } = resolution;
    const before = findCondition(stream.status?.conditions, RESOLVED_CONDITION)?.reason;
    await this.writeStatus(
      stream,
      {
        ...stream.status,
        resolvedVersion: answer.resolvedVersion,
        releaseImage: answer.releaseImage,
        crcBundleVersion: answer.crcBundleVersion,
        lastResolved: resolution.reached ? metaTime(now) : stream.status?.lastResolved,
      },
      condition,
    );
    const moves = [
      moved('moved', previous.resolvedVersion, answer.resolvedVersion),
      moved('CRC bundle', previous.crcBundleVersion, answer.crcBundleVersion),
    ].filter(Boolean);
    if (moves.length > 0)
      void this.ports.events.record(stream, 'Normal', MOVED_EVENT, moves.join('; '));
    if (condition.status === 'False' && condition.reason !== before)
      void this.ports.events.record(stream, 'Warning', condition.reason, condition.message);
  }

  private async writeStatus(
    stream: Stream,
    status: StreamStatus,
    condition: Omit<ConditionUpdate, 'type'>,
  ): Promise<void> {
    const generation = stream.metadata.generation;
    const next: StreamStatus = {
      ...withoutUndefined(status),
      observedGeneration: generation,
      conditions: setCondition(
        stream.status?.conditions,
        { type: RESOLVED_CONDITION, ...condition, observedGeneration: generation },
        this.ports.clock.now(),
      ),
    };
    if (sameContent(stream.status ?? {}, next)) return;
    await this.ports.client.updateStatus(VERSION_STREAMS, { ...stream, status: next });
  }
}

/**
 * The wait before a stream checked with this generation is due again; undefined when it is due.
 * Our own status writes come back as events: they wait for the stream's next check.
 */
function waitFor(
  schedule: Schedule | undefined,
  generation: number | undefined,
  now: number,
): ReconcileResult | undefined {
  if (!schedule || schedule.generation !== generation) return undefined;
  if (schedule.dueAt === Infinity) return {};
  return now < schedule.dueAt ? { requeueAt: schedule.dueAt } : undefined;
}

/** "moved from 4.19.6 to 4.19.7", or undefined when it did not move. */
function moved(what: string, from: string | undefined, to: string | undefined): string | undefined {
  if (!to || from === to) return undefined;
  return `${what} from ${from ?? '(none)'} to ${to}`;
}

/** RFC 3339 to the second, as Kubernetes writes times. */

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
