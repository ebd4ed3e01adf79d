import { findCondition } from '../../../api/conditions.js';
import { SECRETS } from '../../../../client/api/resources.js';
import { decodeBase64 } from '../core/encoding.js';
import type { Instance } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { PlatformObject } from '../core/platform-object.js';
import { Reason } from '../core/reasons.js';
import type { Wait } from '../../../reconcile/verdict.js';
import type { SecretObject } from './hcp-builders.js';
import { desiredReplicas } from './hcp-builders.js';
import type { HcpPlacement } from './hcp-placement.js';

/*
 * What HyperShift says about an hcp instance's guest
 * (docs/reference/instances.md#hcp-provisioning): the HostedCluster Available, the NodePool at its
 * replicas, the admin kubeconfig, the Route admitted.
 */

/** HostedCluster Available and NodePool at its replicas, or why not. */
export function platformWait(
  instance: Instance,
  placement: HcpPlacement,
  hostedCluster: PlatformObject,
  nodePool: PlatformObject | undefined,
): Wait | undefined {
  const available = findCondition((hostedCluster.status?.conditions ?? []) as never, 'Available');
  const hcName = `${placement.hostedClusterNamespace}/${placement.hostedClusterName}`;
  if (available?.status !== 'True')
    return {
      reason: Reason.HostedClusterNotAvailable,
      message: available
        ? `HostedCluster ${hcName} is not Available (${available.reason}): ${available.message}`
        : `waiting for HostedCluster ${hcName} to become Available`,
    };
  const wanted = desiredReplicas(instance);
  const replicas = Number(nodePool?.status?.replicas ?? 0);
  if (replicas < wanted)
    return {
      reason: Reason.NodePoolNotReady,
      message: `NodePool ${placement.hostedClusterNamespace}/${placement.nodePoolName} has ${replicas} of ${wanted} replica(s)${machinesNotReady(nodePool)}`,
    };
  return undefined;
}

/**
 * What HyperShift says of the NodePool's machines when they are not all ready: its
 * AllMachinesReady condition, lines joined (`: AllMachinesReady=False (<reason>): <message>`);
 * empty when it says nothing.
 */
function machinesNotReady(nodePool: PlatformObject | undefined): string {
  const machines = findCondition((nodePool?.status?.conditions ?? []) as never, 'AllMachinesReady');
  if (machines?.status !== 'False') return '';
  const message = (machines.message ?? '').trim().split('\n').join('; ');
  return `: AllMachinesReady=False (${machines.reason}): ${message}`;
}

/** HyperShift's admin kubeconfig (status.kubeConfig names its Secret), or why it is not there. */
export async function adminKubeconfig(
  objects: InstanceObjects,
  placement: HcpPlacement,
  hostedCluster: PlatformObject,
): Promise<string | Wait> {
  const name = (hostedCluster.status?.kubeconfig as { name?: string } | undefined)?.name;
  const secret = name
    ? await objects.current<SecretObject>(SECRETS, name, placement.hostedClusterNamespace)
    : undefined;
  const kubeconfig = decodeBase64(secret?.data?.kubeconfig);
  if (kubeconfig) return kubeconfig;
  return {
    reason: Reason.KubeconfigUnavailable,
    message: name
      ? `admin kubeconfig Secret ${placement.hostedClusterNamespace}/${name} has no data key "kubeconfig" yet`
      : `HostedCluster ${placement.hostedClusterName} has no status.kubeConfig yet`,
  };
}

export function isAdmitted(route: PlatformObject): boolean {
  const ingress = (route.status?.ingress ?? []) as {
    host?: string;
    conditions?: { type: string; status: string }[];
  }[];
  return ingress.some(
    (entry) =>
      (!entry.host || entry.host === route.spec?.host) &&
      entry.conditions?.some((c) => c.type === 'Admitted' && c.status === 'True'),
  );
}

/** HostedCluster status.version.desired.version; empty when HyperShift has not said. */
export function observedVersion(hostedCluster: PlatformObject): string {
  const version = hostedCluster.status?.version as { desired?: { version?: string } } | undefined;
  return version?.desired?.version ?? '';
}
