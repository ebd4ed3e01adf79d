import { NAMESPACES, SECRETS } from '../../../../client/api/resources.js';
import {
  HOSTED_CLUSTERS,
  NODE_POOLS,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import { ownerKeys } from '../../../runtime/owner-keys.js';
import type { InstanceApi } from '../core/instance-api.js';
import { instanceKeys, labelledInstance, ownerInstances } from '../core/watches.js';
import { recordedPlacement } from './hcp-placement.js';

/**
 * What an hcp instance hears about (event-driven, ADR 0004): its HostedCluster and NodePool (owner
 * references, same namespace), its Secrets and HyperShift's admin kubeconfig Secret (owned by
 * the HostedCluster), its Route and the control plane namespace with the worker VMIs and volumes
 * in it (other namespaces: by labels and by the recorded placement).
 */
export function hcpWatches(api: InstanceApi): WatchSpec[] {
  const byControlPlaneNamespace = (namespace: string | undefined): string[] =>
    instanceKeys(
      api,
      (i) => i.spec.type === 'hcp' && recordedPlacement(i)?.controlPlaneNamespace === namespace,
    );
  const inControlPlane = (object: KubeObject): string[] =>
    byControlPlaneNamespace(object.metadata?.namespace);
  return [
    { type: HOSTED_CLUSTERS, map: ownerInstances },
    { type: NODE_POOLS, map: ownerInstances },
    {
      type: SECRETS,
      map: (secret) => [
        ...ownerInstances(secret),
        ...ownerKeys(secret, HOSTED_CLUSTERS).flatMap((key) =>
          labelledInstance(api.cached<KubeObject>(HOSTED_CLUSTERS, key)),
        ),
      ],
    },
    { type: ROUTES, map: labelledInstance },
    { type: NAMESPACES, map: (namespace) => byControlPlaneNamespace(namespace.metadata?.name) },
    { type: VIRTUAL_MACHINE_INSTANCES, map: inControlPlane },
    { type: PERSISTENT_VOLUME_CLAIMS, map: inControlPlane },
  ];
}
