import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { CRCBundle } from '../../api/resources.js';
import { BUNDLES } from '../../api/resources.js';
import type { KubeObject, OwnerReference, StoredCluster } from '../../kube/objects.js';

import { LABEL_CRC_BUNDLE } from '../../../contracts/labels.js';

export { LABEL_CRC_BUNDLE };

/**
 * The CRCBundle labels (docs/reference/generated-objects.md#label-sets): on the PVCs, the prep Job
 * and its pod.
 */
export function bundleLabels(bundle: StoredCluster<CRCBundle>): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_CRC_BUNDLE]: bundle.metadata.name };
}

/** The controller reference that lets the garbage collector remove a bundle's objects with it. */
export function bundleOwnerReference(bundle: StoredCluster<CRCBundle>): OwnerReference {
  return {
    apiVersion: BUNDLES.apiVersion,
    kind: BUNDLES.kind,
    name: bundle.metadata.name,
    uid: bundle.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether `object` is controlled by this very owner (not by a deleted one of the same name). */
export function controlledBy(object: KubeObject | undefined, owner: KubeObject): boolean {
  return (
    object?.metadata?.ownerReferences?.some(
      (ref) => ref.controller === true && ref.uid === owner.metadata?.uid,
    ) ?? false
  );
}
