import { setTimeout as delay } from 'node:timers/promises';
import type { ClusterLease } from '../api/resources.js';
import { LEASES } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isConflict, isNotFound } from '../kube/api-error.js';
import { belongsTo } from './lease-owner.js';
import type { GitHubRun } from './github-run.js';
import { retryWithin } from './retry.js';

export type ReleaseOutcome = 'released' | 'already-gone' | 'replaced' | 'still-releasing';

export interface ReleaseTarget {
  name: string;
  namespace: string;
  /** The lease main created. Unknown when its create response was lost: then see `run`. */
  uid?: string;
  /** Without a UID, a lease of this name is released only if this run, attempt and job made it. */
  run?: GitHubRun;
}

export interface ReleaseOptions {
  /** For everything: the delete, its retries, and waiting for the lease to go. */
  budgetMs: number;
  /** A request failed and is tried again after `delayMs`. */
  onRetry: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Requests hang at most this long before they are tried again. */
const ATTEMPT_TIMEOUT_MS = 30_000;
/** 1 s, 2 s, 4 s … up to 15 s between attempts. */
const RETRY_DELAY = { baseDelayMs: 1000, maxDelayMs: 15_000 };
/** The longest wait for the operator to let go of the instance once the delete is in. */
const MAX_WAIT_UNTIL_GONE_MS = 120_000;

/**
 * Deletes the lease (only that exact object: a later lease with the same name is not ours) and
 * waits for it to disappear, which it does once the operator has let go of its instance. Failed
 * requests are tried again with backoff until the budget is spent (then a
 * RetriesExhaustedError), except answers that another try would not change. Already gone is fine,
 * so releasing twice is harmless.
 */
export async function releaseLease(
  api: ApiClient,
  target: ReleaseTarget,
  options: ReleaseOptions,
): Promise<ReleaseOutcome> {
  const deadline = Date.now() + options.budgetMs;
  const retrying = <T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T> =>
    retryWithin(operation, {
      ...RETRY_DELAY,
      budgetMs: Math.max(0, deadline - Date.now()),
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      onRetry: options.onRetry,
    });
  const own = target.uid ? { uid: target.uid } : await retrying((s) => ownLease(api, target, s));
  if (own === 'absent') return 'already-gone';
  if (own === 'not-ours') return 'replaced';
  const { uid } = own;
  const deleted = await retrying((signal) => deleteExactly(api, target, uid, signal));
  if (deleted !== 'deleted') return deleted;
  const waitMs = Math.min(MAX_WAIT_UNTIL_GONE_MS, Math.max(0, deadline - Date.now()));
  return (await waitUntilGone(api, { ...target, uid }, waitMs)) ? 'released' : 'still-releasing';
}

/** The UID of the lease of that name if this run made it (a create whose response was lost). */
async function ownLease(
  api: ApiClient,
  target: ReleaseTarget,
  signal: AbortSignal,
): Promise<{ uid: string } | 'absent' | 'not-ours'> {
  let lease: ClusterLease;
  try {
    lease = await api.get<ClusterLease>(LEASES, target.name, target.namespace, { signal });
  } catch (error) {
    if (isNotFound(error)) return 'absent';
    throw error;
  }
  return target.run && belongsTo(lease, target.run) ? { uid: lease.metadata!.uid! } : 'not-ours';
}

async function deleteExactly(
  api: ApiClient,
  target: ReleaseTarget,
  uid: string,
  signal: AbortSignal,
): Promise<'deleted' | 'already-gone' | 'replaced'> {
  try {
    await api.delete(LEASES, target.name, target.namespace, { uid, signal });
    return 'deleted';
  } catch (error) {
    if (isNotFound(error)) return 'already-gone';
    // A failed UID precondition: the name now belongs to another lease.
    if (isConflict(error)) return 'replaced';
    throw error;
  }
}

async function waitUntilGone(
  api: ApiClient,
  lease: { name: string; namespace: string; uid: string },
  waitMs: number,
): Promise<boolean> {
  const timeout = AbortSignal.timeout(Math.max(1, waitMs));
  while (!timeout.aborted) {
    let current: ClusterLease;
    try {
      current = await api.get<ClusterLease>(LEASES, lease.name, lease.namespace, {
        signal: timeout,
      });
    } catch (error) {
      if (isNotFound(error)) return true;
      // The delete is in: the lease goes whether or not this read gets through.
      await delay(RETRY_DELAY_MS, undefined, { signal: timeout }).catch(() => undefined);
      continue;
    }
    if (current.metadata?.uid !== lease.uid) return true;
    const deleted = new AbortController();
    try {
      await api.watch<ClusterLease>(
        LEASES,
        {
          namespace: lease.namespace,
          fieldSelector: `metadata.name=${lease.name}`,
          resourceVersion: current.metadata.resourceVersion!,
          timeoutSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        },
        (event) => {
          if (event.type === 'DELETED') deleted.abort();
        },
        AbortSignal.any([timeout, deleted.signal]),
      );
    } catch {
      // Aborted (deleted, or out of time), or the stream broke: the next read tells which.
      if (!deleted.signal.aborted && !timeout.aborted)
        await delay(RETRY_DELAY_MS, undefined, { signal: timeout }).catch(() => undefined);
    }
    if (deleted.signal.aborted) return true;
  }
  return false;
}

const RETRY_DELAY_MS = 1000;
