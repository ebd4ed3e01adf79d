import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';

import { LABEL_CRC_BUNDLE } from '../../../contracts/labels.js';

export { LABEL_CRC_BUNDLE };

/**
 * The CRCBundle labels (docs/reference/generated-objects.md#label-sets): on the PVCs, the prep Job
 * and its pod.
 */
export function bundleLabels(bundle: StoredCluster<CRCBundle>): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_CRC_BUNDLE]: bundle.metadata.name };
}
