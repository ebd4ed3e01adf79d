import { FINALIZER_LEASE_RELEASE } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { INSTANCES, LEASES } from '../../api/resources.js';
import { isNotFound } from '../../kube/api-error.js';
import { splitKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { deleteInstanceIf, readInstance } from '../instance-deletion.js';

const claimedBy =
  (uid: string | undefined) =>
  (instance: ClusterInstance): boolean =>
    !!uid && instance.status?.leaseRef?.uid === uid;

/**
 * The release finalizer: deletes every instance that carries this lease's claim (its bound one
 * and any claim of a bind that did not finish), then lets the lease go. An instance is deleted
 * only while its claim is this lease's: a lease whose instance was replaced by another of the
 * same name leaves the new one alone. The bound instance is read live when the cache does not
 * show the claim (it may lag behind the bind).
 */
export async function releaseLease(
  manager: Manager,
  lease: ClusterLease,
  context: ReconcileContext,
): Promise<ReconcileResult> {
  if (!lease.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE)) return {};
  const { namespace, uid } = lease.metadata;
  const ours = claimedBy(uid);
  const claimed = manager
    .informer<ClusterInstance>(INSTANCES)
    .list((i) => i.metadata!.namespace === namespace && ours(i));
  const boundName = lease.status?.instanceRef?.name;
  if (boundName && !claimed.some((i) => i.metadata!.name === boundName)) {
    const live = await readInstance(manager.client, boundName, namespace!);
    if (live && ours(live)) claimed.push(live);
  }
  for (const instance of claimed) {
    if (instance.metadata?.deletionTimestamp) continue;
    const outcome = await deleteInstanceIf(manager.client, instance, ours);
    if (outcome === 'deleted')
      context.logger.info(
        { instance: instance.metadata!.name },
        'Deleted ClusterInstance of released ClusterLease',
      );
  }
  const finalizers = lease.metadata.finalizers.filter((f) => f !== FINALIZER_LEASE_RELEASE);
  await manager.client
    .update(LEASES, { ...lease, metadata: { ...lease.metadata, finalizers } })
    .catch((error: unknown) => {
      // Another manager let it go first.
      if (!isNotFound(error)) throw error;
    });
  return {};
}

/**
 * Instances claimed by a lease that no longer exists: its finalizer never ran (the lease went
 * before the finalizer written after the binding landed, or someone removed the finalizer). The
 * cache may just lag behind a new lease, so the lease is read live first, and an instance is
 * deleted only while it still carries that dead claim. It may have been used, so it is deleted,
 * not handed out again; the pool replaces it.
 */
export async function deleteOrphanedClaims(
  manager: Manager,
  key: string,
  context: ReconcileContext,
): Promise<ReconcileResult> {
  const { namespace, name } = splitKey(key);
  const claimed = manager
    .informer<ClusterInstance>(INSTANCES)
    .list(
      (i) =>
        i.metadata!.namespace === namespace &&
        i.status?.leaseRef?.name === name &&
        !i.metadata?.deletionTimestamp,
    );
  if (claimed.length === 0) return {};
  const liveUid = await manager.client
    .get<ClusterLease>(LEASES, name, namespace)
    .then((lease) => lease.metadata?.uid)
    .catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  for (const instance of claimed) {
    const deadClaim = instance.status?.leaseRef?.uid;
    if (deadClaim === liveUid) continue;
    const outcome = await deleteInstanceIf(manager.client, instance, (live) => {
      const claim = live.status?.leaseRef;
      return claim?.name === name && claim.uid === deadClaim;
    });
    if (outcome === 'deleted')
      context.logger.info(
        { instance: instance.metadata!.name },
        'Deleted ClusterInstance claimed by a ClusterLease that no longer exists',
      );
  }
  return {};
}
