import { setTimeout as delay } from 'node:timers/promises';
import type { ClusterLease } from '../operator/api/resources.js';
import { LEASES } from '../operator/api/resources.js';
import type { ApiClient } from '../operator/kube/api-client.js';
import { isConflict, isNotFound } from '../operator/kube/api-error.js';

export type ReleaseOutcome = 'released' | 'already-gone' | 'replaced' | 'still-releasing';

/**
 * Deletes the lease (only that exact object: a later lease with the same name is not ours) and
 * waits up to `waitMs` for it to disappear, which it does once the operator has let go of its
 * instance. Already gone is fine.
 */
export async function releaseLease(
  api: ApiClient,
  lease: { name: string; namespace: string; uid?: string },
  waitMs: number,
): Promise<ReleaseOutcome> {
  try {
    await api.delete(LEASES, lease.name, lease.namespace, lease.uid ? { uid: lease.uid } : {});
  } catch (error) {
    if (isNotFound(error)) return 'already-gone';
    // A failed UID precondition: the name now belongs to another lease.
    if (isConflict(error)) return 'replaced';
    throw error;
  }
  return (await waitUntilGone(api, lease, waitMs)) ? 'released' : 'still-releasing';
}

async function waitUntilGone(
  api: ApiClient,
  lease: { name: string; namespace: string; uid?: string },
  waitMs: number,
): Promise<boolean> {
  const timeout = AbortSignal.timeout(waitMs);
  while (!timeout.aborted) {
    let current: ClusterLease;
    try {
      current = await api.get<ClusterLease>(LEASES, lease.name, lease.namespace);
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
    if (lease.uid && current.metadata?.uid !== lease.uid) return true;
    const deleted = new AbortController();
    try {
      await api.watch<ClusterLease>(
        LEASES,
        {
          namespace: lease.namespace,
          fieldSelector: `metadata.name=${lease.name}`,
          resourceVersion: current.metadata!.resourceVersion!,
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
