import { LABEL_CLUSTER_INSTANCE, LABEL_CLUSTER_INSTANCE_NAMESPACE } from '../../../api/labels.js';
import type { ClusterInstance } from '../../../api/resources.js';
import { INSTANCES, NAMESPACES, SECRETS } from '../../../api/resources.js';
import {
  HOSTED_CLUSTERS,
  NODE_POOLS,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { Manager, WatchSpec } from '../../../runtime/manager.js';
import { ownerKeys } from '../../../runtime/owner-keys.js';
import { recordedPlacement } from './hcp-placement.js';

/** The instance named by an object's instance and instance-namespace labels (works across namespaces). */
function labelledInstance(object: KubeObject | undefined): string[] {
  const labels = object?.metadata?.labels ?? {};
  const name = labels[LABEL_CLUSTER_INSTANCE];
  const namespace = labels[LABEL_CLUSTER_INSTANCE_NAMESPACE];
  return name && namespace ? [`${namespace}/${name}`] : [];
}

/**
 * What an hcp instance hears about (DESIGN item 1): its HostedCluster and NodePool (owner
 * references, same namespace), its Secrets and HyperShift's admin kubeconfig Secret (owned by
 * the HostedCluster), its Route and the control plane namespace with the worker VMIs and volumes
 * in it (other namespaces: by labels and by the recorded placement).
 */
export function hcpWatches(manager: Manager): WatchSpec[] {
  const instances = manager.informer<ClusterInstance>(INSTANCES);
  const hostedClusters = manager.informer<KubeObject>(HOSTED_CLUSTERS);
  const byControlPlaneNamespace = (namespace: string | undefined): string[] =>
    instances
      .list(
        (i) => i.spec.type === 'hcp' && recordedPlacement(i)?.controlPlaneNamespace === namespace,
      )
      .map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`);
  const inControlPlane = (object: KubeObject): string[] =>
    byControlPlaneNamespace(object.metadata?.namespace);
  return [
    { type: HOSTED_CLUSTERS, map: (o) => ownerKeys(o, INSTANCES) },
    { type: NODE_POOLS, map: (o) => ownerKeys(o, INSTANCES) },
    {
      type: SECRETS,
      map: (secret) => [
        ...ownerKeys(secret, INSTANCES),
        ...ownerKeys(secret, HOSTED_CLUSTERS).flatMap((key) =>
          labelledInstance(hostedClusters.get(key)),
        ),
      ],
    },
    { type: ROUTES, map: labelledInstance },
    { type: NAMESPACES, map: (namespace) => byControlPlaneNamespace(namespace.metadata?.name) },
    { type: VIRTUAL_MACHINE_INSTANCES, map: inControlPlane },
    { type: PERSISTENT_VOLUME_CLAIMS, map: inControlPlane },
  ];
}
