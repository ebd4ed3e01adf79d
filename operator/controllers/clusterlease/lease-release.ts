import { FINALIZER_LEASE_RELEASE } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease } from '../../../client/api/resources.js';
import { INSTANCES, LEASES } from '../../../client/api/resources.js';
import { isNotFound, orUndefined } from '../../../client/kube/api-error.js';
import { splitKey } from '../../kube/objects.js';
import { withoutFinalizer } from '../../kube/ownership.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { claimOf, isClaimedBy } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';

/**
 * The release finalizer: deletes every instance that carries this lease's claim (its bound one
 * and any claim of a bind that did not finish), then lets the lease go. An instance is deleted
 * only while its claim is this lease's: a lease whose instance was replaced by another of the
 * same name leaves the new one alone. The bound instance is read live when the cache does not
 * show the claim (it may lag behind the bind).
 */
export async function releaseLease(
  ports: ControllerPorts,
  lease: Lease,
  context: ReconcileContext,
): Promise<ReconcileResult> {
  if (!lease.metadata.finalizers?.includes(FINALIZER_LEASE_RELEASE)) return {};
  const { namespace } = lease.metadata;
  const ours = (instance: ClusterInstance): boolean => isClaimedBy(instance, lease);
  const instances = await ports.cache.read<ClusterInstance>(INSTANCES);
  const claimed = instances.list(namespace, ours);
  const boundName = lease.status?.instanceRef?.name;
  if (boundName && !claimed.some((i) => i.metadata.name === boundName)) {
    const live = await ports.client.getOrUndefined<ClusterInstance>(
      INSTANCES,
      boundName,
      namespace,
    );
    if (live && ours(live)) claimed.push(live);
  }
  for (const instance of claimed) {
    if (instance.metadata.deletionTimestamp) continue;
    const outcome = await deleteInstanceIf(ports.client, instance, ours);
    if (outcome === 'deleted')
      context.logger.info(
        { instance: instance.metadata.name },
        'Deleted ClusterInstance of released ClusterLease',
      );
  }
  // Another manager may have let it go first.
  await orUndefined(
    ports.client.update(LEASES, withoutFinalizer(lease, FINALIZER_LEASE_RELEASE)),
    isNotFound,
  );
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
  ports: ControllerPorts,
  key: string,
  context: ReconcileContext,
): Promise<ReconcileResult> {
  const { namespace = '', name } = splitKey(key);
  const instances = await ports.cache.read<ClusterInstance>(INSTANCES);
  const claimed = instances.list(
    namespace,
    (i) => claimOf(i)?.name === name && !i.metadata.deletionTimestamp,
  );
  if (claimed.length === 0) return {};
  const live = await ports.client.getOrUndefined<ClusterLease>(LEASES, name, namespace);
  for (const instance of claimed) {
    const deadClaim = claimOf(instance)?.uid;
    if (deadClaim === live?.metadata.uid) continue;
    const stillDead = (current: Instance): boolean => {
      const claim = claimOf(current);
      return claim?.name === name && claim.uid === deadClaim;
    };
    const outcome = await deleteInstanceIf(ports.client, instance, stillDead);
    if (outcome === 'deleted')
      context.logger.info(
        { instance: instance.metadata.name },
        'Deleted ClusterInstance claimed by a ClusterLease that no longer exists',
      );
  }
  return {};
}
