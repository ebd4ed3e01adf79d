import { SECRETS } from '../../../../client/api/resources.js';
import {
  HOSTED_CLUSTERS,
  LABEL_NODE_POOL_NAME,
  NODE_POOLS,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../../api/platform-resources.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { removeAll } from '../core/teardown.js';
import { apiRouteName, kasServingCertName } from './hcp-naming.js';
import { recordedPlacement } from './hcp-placement.js';

/**
 * docs/reference/instances.md#deletion, hcp: the HostedCluster, then the NodePool as a backup, then
 * what is left behind. Someone else's object of a name is never touched. True while something is
 * still going away.
 */
export async function hcpTeardown(api: InstanceApi, objects: InstanceObjects): Promise<boolean> {
  const instance = objects.instance;
  const placement = recordedPlacement(instance);
  // Nothing is created before the placement is recorded.
  if (!placement) return false;
  const { hostedClusterNamespace: namespace, controlPlaneNamespace: cp } = placement;
  const name = instance.metadata.name;
  let pending = await removeAll([
    () =>
      objects.remove(HOSTED_CLUSTERS, placement.hostedClusterName, { namespace, only: 'owned' }),
    () => objects.remove(NODE_POOLS, placement.nodePoolName, { namespace, only: 'owned' }),
    () => objects.remove(SECRETS, kasServingCertName(name), { namespace, only: 'owned' }),
    () => objects.remove(ROUTES, apiRouteName(name), { namespace: cp, only: 'owned' }),
  ]);
  const workers = `${LABEL_NODE_POOL_NAME}=${placement.nodePoolName}`;
  const vmis = await api.list(VIRTUAL_MACHINE_INSTANCES, { namespace: cp, labelSelector: workers });
  if (vmis.length > 0) pending = true;
  const pods = await api.list(PODS, { namespace: cp, labelSelector: workers });
  for (const pod of pods) {
    pending = true;
    await api.delete(PODS, pod);
  }
  const volumes = await api.list(PERSISTENT_VOLUME_CLAIMS, { namespace: cp });
  return pending || volumes.length > 0;
}
