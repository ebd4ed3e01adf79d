import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { INSTANCES } from '../../api/resources.js';
import type { Manager } from '../../runtime/manager.js';
import { readInstance } from '../instance-deletion.js';

/** How long a bound instance may be not Ready before its lease says so (phase NotReady). */
export const NOT_READY_GRACE_MS = 3 * 60_000;

export type BoundInstance =
  | { state: 'ready'; instance: ClusterInstance }
  /** Not Ready since `since`; `lasting` once that is longer than the grace. */
  | { state: 'not-ready'; instance: ClusterInstance; since: number; lasting: boolean }
  | { state: 'lost'; message: string };

/**
 * How the instance a lease is bound to (status.instanceRef) stands. Lost means it no longer is
 * that lease's cluster: gone, being deleted, replaced by another object of its name, or claimed
 * by someone else. Lost is final, so that verdict is never taken from the cache alone (another
 * manager's cache may still show an older object of the name): the instance is read live first.
 */
export async function boundInstance(manager: Manager, lease: ClusterLease): Promise<BoundInstance> {
  const { namespace } = lease.metadata!;
  const name = lease.status!.instanceRef!.name!;
  const cached = manager.informer<ClusterInstance>(INSTANCES).get(`${namespace}/${name}`);
  let verdict = judge(lease, cached, manager.clock.now());
  if (verdict.state === 'lost' || (verdict.state === 'not-ready' && verdict.lasting))
    verdict = judge(
      lease,
      await readInstance(manager.client, name, namespace!),
      manager.clock.now(),
    );
  return verdict;
}

function judge(
  lease: ClusterLease,
  instance: ClusterInstance | undefined,
  now: number,
): BoundInstance {
  const lost = lostBecause(lease, instance);
  if (lost || !instance) return { state: 'lost', message: lost! };
  const ready = findCondition(instance.status?.conditions, 'Ready');
  if (instance.status?.phase === 'Ready' && ready?.status !== 'False')
    return { state: 'ready', instance };
  const since = Date.parse(
    (ready?.status === 'True' ? undefined : ready?.lastTransitionTime) ?? lease.status!.boundTime!,
  );
  return { state: 'not-ready', instance, since, lasting: now - since >= NOT_READY_GRACE_MS };
}

/** Why this is no longer the lease's instance; undefined while it is. */
function lostBecause(
  lease: ClusterLease,
  instance: ClusterInstance | undefined,
): string | undefined {
  const ref = lease.status!.instanceRef!;
  const what = `ClusterInstance ${ref.name}`;
  if (!instance) return `${what} no longer exists`;
  const uid = instance.metadata!.uid;
  if (ref.uid && uid !== ref.uid)
    return `${what} was deleted and replaced by another object of that name (UID ${uid}, bound to ${ref.uid})`;
  if (instance.metadata?.deletionTimestamp)
    return `${what} is being deleted (since ${instance.metadata.deletionTimestamp})`;
  const claim = instance.status?.leaseRef;
  if (claim?.uid === lease.metadata!.uid) return undefined;
  return claim?.uid
    ? `${what} is now claimed by ClusterLease ${claim.name} (UID ${claim.uid})`
    : `${what} no longer carries this lease's claim (status.leaseRef)`;
}

/** A one-line account of an instance that is not Ready, for the lease's condition. */
export function notReadyMessage(instance: ClusterInstance, since: number): string {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  const why = ready ? `${ready.reason}: ${ready.message}` : `phase ${instance.status?.phase}`;
  return `ClusterInstance ${instance.metadata!.name} has not been Ready since ${new Date(since).toISOString()} (${why})`;
}
