import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { thirdPartyCrd } from '../platform/third-party-crds.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../support/resource-type.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The OpenShift configuration kinds crc-agent reads and writes inside a CRC guest. On OpenShift
 * the cluster-version operator installs them; the simulated guest's API server gets open stand-ins
 * with the same group, version, names and scope.
 */
export const GUEST_KINDS = [
  { kind: 'ClusterVersion', plural: 'clusterversions' },
  { kind: 'ClusterOperator', plural: 'clusteroperators' },
  { kind: 'APIServer', plural: 'apiservers' },
  { kind: 'OAuth', plural: 'oauths' },
].map(({ kind, plural }) =>
  thirdPartyCrd({ group: 'config.openshift.io', version: 'v1', kind, plural, scope: 'Cluster' }),
);

function isEstablished(crd: V1CustomResourceDefinition | undefined): boolean {
  return (
    crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false
  );
}

/** Applies the guest kinds (server-side apply) and waits until each is Established. */
export async function installGuestCrds(kubeConfig: KubeConfig): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of GUEST_KINDS)
    await objects.patch(
      crd,
      undefined,
      undefined,
      'simulated-crc-guest',
      true,
      PatchStrategy.ServerSideApply,
    );
  await Promise.all(
    GUEST_KINDS.map((crd) =>
      waitFor<V1CustomResourceDefinition>(kubeConfig, {
        type: CUSTOM_RESOURCE_DEFINITIONS,
        name: crd.metadata!.name!,
        until: isEstablished,
      }),
    ),
  );
}
