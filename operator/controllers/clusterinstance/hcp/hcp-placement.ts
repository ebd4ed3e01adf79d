import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { Instance } from '../core/instance-api.js';
import { isDns1123Label } from '../core/naming.js';
import { controlPlaneNamespace, hostedClusterName, nodePoolName } from './hcp-naming.js';
import { isOwnedBy } from './hcp-ownership.js';

/**
 * Where an instance's HostedCluster lives
 * (docs/reference/instances.md#hcp-placement-and-ownership): always the instance's own namespace.
 */
export interface HcpPlacement {
  hostedClusterNamespace: string;
  hostedClusterName: string;
  nodePoolName: string;
  controlPlaneNamespace: string;
}

/** The recorded placement, if status.hyperShift holds one. */
export function recordedPlacement(instance: Instance): HcpPlacement | undefined {
  const recorded = instance.status?.hyperShift;
  if (!recorded?.hostedClusterName || !recorded.hostedClusterNamespace) return undefined;
  return {
    hostedClusterNamespace: recorded.hostedClusterNamespace,
    hostedClusterName: recorded.hostedClusterName,
    nodePoolName: recorded.nodePoolNames?.[0] ?? nodePoolName(recorded.hostedClusterName),
    controlPlaneNamespace: controlPlaneNamespace(
      recorded.hostedClusterNamespace,
      recorded.hostedClusterName,
    ),
  };
}

/** The placement a new instance gets; throws a NamingError when its namespace is too long. */
export function plannedPlacement(instance: Instance): HcpPlacement {
  const namespace = instance.metadata.namespace;
  const name = hostedClusterName(namespace, instance.metadata.name);
  return {
    hostedClusterNamespace: namespace,
    hostedClusterName: name,
    nodePoolName: nodePoolName(name),
    controlPlaneNamespace: controlPlaneNamespace(namespace, name),
  };
}

/** What exists on the management cluster that a placement could collide with. */
export interface PlacementWorld {
  hostedClusters: readonly Stored<KubeObject>[];
  /** Whether a Namespace of this name exists. */
  namespaceExists: (name: string) => boolean;
  instances: readonly Instance[];
}

/**
 * Checks a placement before anything is created
 * (docs/reference/instances.md#hcp-placement-and-ownership): names valid, no foreign HostedCluster
 * with this name or control plane namespace, the control plane namespace not taken (unless our
 * HostedCluster made it), no other instance recorded for it. A message, or undefined.
 */
export function placementConflict(
  instance: Instance,
  placement: HcpPlacement,
  world: PlacementWorld,
): string | undefined {
  const cp = placement.controlPlaneNamespace;
  if (!isDns1123Label(cp))
    return `hosted control plane namespace "${cp}" is not a DNS-1123 label of at most 63 characters`;
  if (!isDns1123Label(placement.hostedClusterName) || !isDns1123Label(placement.nodePoolName))
    return `HostedCluster "${placement.hostedClusterName}" or NodePool "${placement.nodePoolName}" is not a DNS-1123 label`;
  const own = world.hostedClusters.find(
    (hc) =>
      hc.metadata?.namespace === placement.hostedClusterNamespace &&
      hc.metadata?.name === placement.hostedClusterName,
  );
  if (own && !isOwnedBy(own, instance))
    return `HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName} already exists and does not belong to ClusterInstance ${instance.metadata.name}`;
  const rival = world.hostedClusters.find(
    (hc) => hc !== own && controlPlaneNamespace(hc.metadata.namespace, hc.metadata.name) === cp,
  );
  if (rival)
    return `HostedCluster ${rival.metadata.namespace}/${rival.metadata.name} already uses the hosted control plane namespace "${cp}"`;
  if (!own && world.namespaceExists(cp))
    return `namespace "${cp}" already exists; it would become the hosted control plane namespace of HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName}`;
  const other = world.instances.find((i) => {
    if (i.metadata?.uid === instance.metadata?.uid || i.spec.type !== 'hcp') return false;
    return recordedPlacement(i)?.controlPlaneNamespace === cp;
  });
  if (other)
    return `ClusterInstance ${other.metadata.namespace}/${other.metadata.name} already recorded the hosted control plane namespace "${cp}"`;
  return undefined;
}
