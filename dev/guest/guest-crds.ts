import type { ClusterAccess } from '../../client/kube/api-client.js';
import type { RestClient } from '../../crc-agent/rest-client.js';
import { installCrds } from '../control-plane/install-crds.js';
import type { CrdManifest } from '../control-plane/platform-crds/crd-manifest.js';
import { guestPlatformCrds } from '../control-plane/platform-crds/platform-crds.js';

/**
 * The OpenShift configuration kinds crc-agent reads and writes inside a CRC guest (ClusterVersion,
 * ClusterOperator, APIServer, OAuth). On OpenShift the cluster-version operator installs them; the
 * simulated guest's API server gets the same CRDs from the OpenShift API module (or open
 * stand-ins, see GUESTCLUSTER_PLATFORM_CRDS), and waits until each is Established.
 */
export async function installGuestCrds(kubeConfig: ClusterAccess): Promise<CrdManifest[]> {
  const crds = await guestPlatformCrds();
  await installCrds(kubeConfig, crds);
  return crds;
}

/**
 * A fresh kube-apiserver holds the first write of each custom kind for about two seconds (while
 * it sets up that kind's storage), using almost no CPU. A dry-run write of each kind, all at once,
 * takes that wait before anyone needs the guest (the answer, valid or refused, does not matter),
 * so that seeding it and the agent's first writes go through at once.
 */
export async function warmGuestKinds(
  admin: RestClient,
  crds: readonly CrdManifest[],
): Promise<void> {
  await Promise.all(
    crds.map((crd) => {
      const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0]!;
      const apiVersion = `${crd.spec.group}/${version.name}`;
      return admin
        .json({
          method: 'POST',
          path: `/apis/${apiVersion}/${crd.spec.names.plural}?dryRun=All`,
          body: { apiVersion, kind: crd.spec.names.kind, metadata: { name: 'warm-up' } },
        })
        .catch(() => undefined);
    }),
  );
}
