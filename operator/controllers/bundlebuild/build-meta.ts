import type { CRCBundle } from '../../../client/api/resources.js';
import type { DesiredMeta, StoredCluster } from '../../kube/objects.js';
import { bundleLabels } from '../bundles/bundle-owner.js';
import { controllerReference } from '../../kube/ownership.js';
import { BUNDLES } from '../../../client/api/resources.js';

/** On every object of a build: which attempt made it. */
export const LABEL_BUILD_ATTEMPT = 'guestcluster.opdev.io/bundle-build-attempt';

export type Bundle = StoredCluster<CRCBundle>;

/** The bundle labels and the attempt: what every build object and pod carries. */
export function buildLabels(bundle: Bundle, attempt: string): Record<string, string> {
  return { ...bundleLabels(bundle), [LABEL_BUILD_ATTEMPT]: attempt };
}

/** Name, namespace, labels and the bundle as controller (the garbage collector's backstop). */
export function buildMeta(
  bundle: Bundle,
  attempt: string,
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): DesiredMeta {
  return {
    name,
    namespace,
    labels: { ...buildLabels(bundle, attempt), ...labels },
    ownerReferences: [controllerReference(BUNDLES, bundle)],
  };
}
