import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { Stored } from '../../kube/objects.js';
import { provisioningGrant } from './pool-membership.js';

/*
 * The parts of ClusterInstance.status that the instance controller does not write
 * (docs/reference/kinds.md#who-writes-what): each is written here and nowhere else, always with
 * the instance's resourceVersion, so a write over a change it has not seen is a conflict.
 */

type Instance = Stored<ClusterInstance>;

/** The lease controller's claim: `status.leaseRef`, the lease's name and UID. */
export function writeClaim(
  client: KubeClient,
  instance: Instance,
  lease: { name: string; uid: string },
): Promise<Instance> {
  return client.updateStatus(INSTANCES, {
    ...instance,
    status: { ...instance.status, leaseRef: { name: lease.name, uid: lease.uid } },
  });
}

/** The lease controller's release of a claim that is not its lease's any more. */
export function writeClaimReleased(client: KubeClient, instance: Instance): Promise<Instance> {
  const status = { ...instance.status };
  delete status.leaseRef;
  return client.updateStatus(INSTANCES, { ...instance, status });
}

/**
 * The pool controller's authorization on an instance it has just created (`status.provisioning`),
 * which makes the instance the pool's (pool-membership.ts).
 */
export function writeProvisioningGrant(
  client: KubeClient,
  instance: Instance,
  pool: string,
  now: number,
): Promise<Instance> {
  return client.updateStatus(INSTANCES, { ...instance, status: provisioningGrant(pool, now) });
}
