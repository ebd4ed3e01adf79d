import type { KubeConfig } from '@kubernetes/client-node';
import { installCrds } from '../control-plane/install-crds.js';
import { guestPlatformCrds } from '../control-plane/platform-crds/platform-crds.js';

/**
 * The OpenShift configuration kinds crc-agent reads and writes inside a CRC guest (ClusterVersion,
 * ClusterOperator, APIServer, OAuth). On OpenShift the cluster-version operator installs them; the
 * simulated guest's API server gets the same CRDs from the OpenShift API module (or open
 * stand-ins, see GUESTCLUSTER_PLATFORM_CRDS), and waits until each is Established.
 */
export async function installGuestCrds(kubeConfig: KubeConfig): Promise<void> {
  await installCrds(kubeConfig, await guestPlatformCrds());
}
