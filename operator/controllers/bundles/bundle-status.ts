import type { ConditionUpdate } from '../../api/conditions.js';
import { setCondition } from '../../api/conditions.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { ControllerPorts } from '../../runtime/ports.js';

export type BundleStatus = NonNullable<CRCBundle['status']>;

/**
 * Writes a bundle's status with these conditions set (observedGeneration the bundle's); nothing
 * when it would not change. Returns the bundle as written.
 */
export async function writeBundleStatus(
  ports: ControllerPorts,
  bundle: StoredCluster<CRCBundle>,
  status: BundleStatus,
  conditions: ConditionUpdate[],
): Promise<StoredCluster<CRCBundle>> {
  const now = ports.clock.now();
  const generation = bundle.metadata.generation;
  const next: BundleStatus = {
    ...status,
    observedGeneration: generation,
    conditions: conditions.reduce(
      (list, condition) =>
        setCondition(list, { ...condition, observedGeneration: generation }, now),
      bundle.status?.conditions,
    ),
  };
  if (sameContent(bundle.status ?? {}, next)) return bundle;
  return ports.client.updateStatus(BUNDLES, { ...bundle, status: next });
}
