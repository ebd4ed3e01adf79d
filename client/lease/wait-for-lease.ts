import { setTimeout as delay } from 'node:timers/promises';
import { findCondition } from '../api/conditions.js';
import type { ClusterLease } from '../api/resources.js';
import { LEASES } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { ApiError, isNotFound } from '../kube/api-error.js';
import { watchObject } from '../kube/watch-object.js';

export type WaitOutcome =
  | { kind: 'bound'; lease: ClusterLease }
  | { kind: 'failed'; lease: ClusterLease; reason: string; message: string }
  | { kind: 'deleted' }
  | { kind: 'timed-out'; lease: ClusterLease }
  | { kind: 'cancelled'; lease: ClusterLease };

export interface WaitOptions {
  timeoutMs: number;
  /**
   * A lease waits for a pool that does not exist (yet), or for a version its pool does not offer
   * (yet): the pool may be applied or changed a moment after the lease. The Action fails once the
   * lease has said so this long.
   */
  poolMissingGraceMs: number;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Every version of the lease seen, in order. */
  onUpdate(lease: ClusterLease): void;
  /** A request failed and will be retried (the apiserver may be restarting). */
  onRetry(error: unknown): void;
}

/** The apiserver ends a watch after this long; the wait then reads the lease and watches again. */
const WATCH_SECONDS = 300;
const RETRY_DELAY_MS = 2000;

function settled(lease: ClusterLease): WaitOutcome | undefined {
  const phase = lease.status?.phase;
  if (phase === 'Bound') return { kind: 'bound', lease };
  // A lease that lost its instance (one a retried step takes over) never binds again.
  if (phase === 'Failed' || phase === 'Lost') {
    const ready = findCondition(lease.status?.conditions, 'Ready');
    return {
      kind: 'failed',
      lease,
      reason: ready?.reason ?? 'Failed',
      message: ready?.message ?? 'the lease failed',
    };
  }
  return undefined;
}

/** The reasons of a lease that its pool cannot serve: the pool is missing, or lacks the version. */
const UNSERVED = ['PoolNotFound', 'VersionUnavailable'];

/**
 * Aborts `grace` after the lease first said its pool cannot serve it, unless it says otherwise
 * before that.
 */
class PoolMissing {
  private readonly expired = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private lease: ClusterLease | undefined;

  constructor(private readonly graceMs: number) {}

  get signal(): AbortSignal {
    return this.expired.signal;
  }

  note(lease: ClusterLease): void {
    const reason = findCondition(lease.status?.conditions, 'Ready')?.reason ?? '';
    const missing = UNSERVED.includes(reason);
    this.lease = lease;
    if (!missing) this.dispose();
    else this.timer ??= setTimeout(() => this.expired.abort(), this.graceMs);
  }

  outcome(): WaitOutcome {
    const lease = this.lease!;
    const ready = findCondition(lease.status?.conditions, 'Ready');
    if (ready?.reason === 'VersionUnavailable')
      return {
        kind: 'failed',
        lease,
        reason: ready.reason,
        message: `${ready.message} (waited ${Math.round(this.graceMs / 1000)}s for it)`,
      };
    return {
      kind: 'failed',
      lease,
      reason: 'PoolNotFound',
      message: `ClusterPool "${lease.spec.poolRef.name}" does not exist in namespace "${lease.metadata!.namespace}" (waited ${Math.round(this.graceMs / 1000)}s for it)`,
    };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Errors that retrying cannot fix: the identity lacks a permission, or its token is rejected. */
function permanent(error: unknown): boolean {
  return error instanceof ApiError && [401, 403].includes(error.status);
}

/** Streams changes of one lease until it settles, is deleted, or `stop` aborts. */
async function watchLease(
  api: ApiClient,
  from: ClusterLease,
  stop: AbortSignal,
  onUpdate: (lease: ClusterLease) => void,
): Promise<ClusterLease | 'deleted'> {
  const { name, namespace, resourceVersion } = from.metadata!;
  const { object } = await watchObject<ClusterLease>(
    api,
    { type: LEASES, name: name!, namespace, resourceVersion: resourceVersion! },
    {
      last: from,
      onChange: (lease) => lease && onUpdate(lease),
      until: (lease) => !lease || Boolean(settled(lease)),
      signal: stop,
      timeoutSeconds: WATCH_SECONDS,
    },
  );
  return object ?? 'deleted';
}

/**
 * Waits until the lease is Bound or Failed, through a watch. Ends early when the lease is
 * deleted by someone else, when `timeoutMs` passes, when the run is cancelled, or when the
 * lease's pool has not existed for the grace.
 */
export async function waitForLease(
  api: ApiClient,
  lease: ClusterLease,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const poolMissing = new PoolMissing(options.poolMissingGraceMs);
  try {
    return await waitUntilSettled(api, lease, options, poolMissing);
  } finally {
    poolMissing.dispose();
  }
}

async function waitUntilSettled(
  api: ApiClient,
  lease: ClusterLease,
  options: WaitOptions,
  poolMissing: PoolMissing,
): Promise<WaitOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const stop = AbortSignal.any([timeout, options.signal, poolMissing.signal]);
  const { name, namespace } = lease.metadata!;
  const seen = (lease: ClusterLease): void => {
    poolMissing.note(lease);
    options.onUpdate(lease);
  };
  let current = lease;
  for (;;) {
    const outcome = settled(current);
    if (outcome) return outcome;
    if (options.signal.aborted) return { kind: 'cancelled', lease: current };
    if (timeout.aborted) return { kind: 'timed-out', lease: current };
    if (poolMissing.signal.aborted) return poolMissing.outcome();
    try {
      const latest = await watchLease(api, current, stop, seen);
      if (latest === 'deleted') return { kind: 'deleted' };
      current = latest;
      if (settled(current) || stop.aborted) continue;
      // The stream ended (server timeout, or a 410 Gone): read the lease and watch again.
      current = await api.get<ClusterLease>(LEASES, name!, namespace);
      seen(current);
    } catch (error) {
      if (isNotFound(error)) return { kind: 'deleted' };
      if (permanent(error)) throw error;
      options.onRetry(error);
      await delay(RETRY_DELAY_MS, undefined, { signal: stop }).catch(() => undefined);
      try {
        current = await api.get<ClusterLease>(LEASES, name!, namespace);
      } catch (readError) {
        if (isNotFound(readError)) return { kind: 'deleted' };
      }
    }
  }
}
