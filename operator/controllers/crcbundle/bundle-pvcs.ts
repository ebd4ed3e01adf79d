import { PVCS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { Desired, StoredCluster } from '../../kube/objects.js';
import type { PersistentVolumeClaim } from '../../kube/workloads.js';
import { bundleLabels } from '../bundles/bundle-owner.js';
import { bundleNames } from '../bundles/bundle-names.js';
import { controllerReference } from '../../kube/ownership.js';
import { BUNDLES } from '../../../client/api/resources.js';

export const DEFAULT_GOLDEN_VOLUME_SIZE = '35Gi';
/**
 * Room for the downloaded archive and the extracted qcow2
 * (docs/reference/generated-objects.md#bundle-pvcs; fixed).
 */
export const SCRATCH_VOLUME_SIZE = '40Gi';

function claim(
  bundle: StoredCluster<CRCBundle>,
  namespace: string,
  name: string,
  size: string,
): Desired<PersistentVolumeClaim> {
  return {
    apiVersion: PVCS.apiVersion,
    kind: PVCS.kind,
    metadata: {
      name,
      namespace,
      labels: bundleLabels(bundle),
      ownerReferences: [controllerReference(BUNDLES, bundle)],
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
    },
  };
}

/**
 * The golden PVC that holds the raw /disk.img instances clone
 * (docs/reference/generated-objects.md#bundle-pvcs).
 */
export function buildGoldenPvc(
  bundle: StoredCluster<CRCBundle>,
  namespace: string,
): Desired<PersistentVolumeClaim> {
  const size = bundle.spec.goldenVolumeSize || DEFAULT_GOLDEN_VOLUME_SIZE;
  return claim(bundle, namespace, bundleNames(bundle.metadata.name).golden, size);
}

/** The scratch PVC prep downloads and extracts into; deleted once the bundle is Ready. */
export function buildScratchPvc(
  bundle: StoredCluster<CRCBundle>,
  namespace: string,
): Desired<PersistentVolumeClaim> {
  return claim(bundle, namespace, bundleNames(bundle.metadata.name).scratch, SCRATCH_VOLUME_SIZE);
}
