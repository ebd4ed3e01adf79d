import type { Condition } from '../../api/conditions.js';
import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimOf } from '../binding/binding-model.js';

export type BoundInstance =
  | { state: 'ready'; instance: Instance }
  /** Not Ready since `since`; `lasting` once that is longer than the grace. */
  | { state: 'not-ready'; instance: Instance; since: number; lasting: boolean }
  | { state: 'lost'; message: string };

/**
 * How the instance a lease is bound to (status.instanceRef) stands. Lost means it no longer is
 * that lease's cluster: gone, being deleted, replaced by another object of its name, or claimed
 * by someone else. Lost is final, so that verdict is never taken from the cache alone (another
 * manager's cache may still show an older object of the name): the instance is read live first.
 * Not Ready for longer than `graceMs` is lasting.
 */
export async function boundInstance(
  ports: ControllerPorts,
  lease: Lease,
  graceMs: number,
): Promise<BoundInstance> {
  const { namespace } = lease.metadata;
  const name = lease.status?.instanceRef?.name;
  if (!name)
    return { state: 'lost', message: 'the lease records no instance (status.instanceRef)' };
  const instances = await ports.cache.read<ClusterInstance>(INSTANCES);
  const judge = (instance: Instance | undefined): BoundInstance =>
    judged(lease, instance, ports.clock.now(), graceMs);
  const verdict = judge(instances.get(name, namespace));
  if (verdict.state === 'lost' || (verdict.state === 'not-ready' && verdict.lasting))
    return judge(await ports.client.getOrUndefined<ClusterInstance>(INSTANCES, name, namespace));
  return verdict;
}

function judged(
  lease: Lease,
  instance: Instance | undefined,
  now: number,
  graceMs: number,
): BoundInstance {
  const lost = lostBecause(lease, instance);
  if (lost !== undefined || !instance) return { state: 'lost', message: lost ?? '' };
  const ready = findCondition(instance.status?.conditions, 'Ready');
  const healthy = findCondition(instance.status?.conditions, 'GuestHealthy');
  const isReady = instance.status?.phase === 'Ready' && ready?.status !== 'False';
  if (isReady && healthy?.status !== 'False') return { state: 'ready', instance };
  // A Ready guest that fails a readiness gate is as little use to the job as one not Ready.
  const since = notReadySince(lease, isReady ? healthy : ready, now);
  return { state: 'not-ready', instance, since, lasting: now - since >= graceMs };
}

/**
 * Since when the instance is of no use: the failing condition's transition (Ready, or GuestHealthy
 * of a Ready guest), never before the binding, else the binding.
 */
function notReadySince(lease: Lease, failing: Condition | undefined, now: number): number {
  const transition = failing?.status === 'True' ? undefined : failing?.lastTransitionTime;
  const bound = Date.parse(lease.status?.boundTime ?? '');
  const since = Date.parse(transition ?? '');
  if (Number.isNaN(since)) return bound || now;
  return Number.isNaN(bound) ? since : Math.max(since, bound);
}

/** Why this is no longer the lease's instance; undefined while it is. */
function lostBecause(lease: Lease, instance: Instance | undefined): string | undefined {
  const ref = lease.status?.instanceRef;
  const what = `ClusterInstance ${ref?.name}`;
  if (!instance) return `${what} no longer exists`;
  const { uid } = instance.metadata;
  if (ref?.uid && uid !== ref.uid)
    return `${what} was deleted and replaced by another object of that name (UID ${uid}, bound to ${ref.uid})`;
  if (instance.metadata.deletionTimestamp)
    return `${what} is being deleted (since ${instance.metadata.deletionTimestamp})`;
  const claim = claimOf(instance);
  if (claim?.uid === lease.metadata.uid) return undefined;
  return claim
    ? `${what} is now claimed by ClusterLease ${claim.name} (UID ${claim.uid})`
    : `${what} no longer carries this lease's claim (status.leaseRef)`;
}

/** A one-line account of an instance that is not Ready or fails a gate, for the lease's condition. */
export function notReadyMessage(instance: Instance, since: number): string {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  const healthy = findCondition(instance.status?.conditions, 'GuestHealthy');
  const at = new Date(since).toISOString();
  const { name } = instance.metadata;
  if (instance.status?.phase === 'Ready' && ready?.status !== 'False' && healthy)
    return `ClusterInstance ${name} has failed a readiness gate since ${at} (${healthy.reason}: ${healthy.message})`;
  const why = ready ? `${ready.reason}: ${ready.message}` : `phase ${instance.status?.phase}`;
  return `ClusterInstance ${name} has not been Ready since ${at} (${why})`;
}
