import { CONFIG_MAPS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { WatchSpec } from '../../runtime/manager.js';

/** The objects a build refers to, as `<kind>/<name>` (all of them in the operator namespace). */
export function buildInputKeys(bundle: CRCBundle): string[] {
  const build = bundle.spec?.build;
  if (!build) return [];
  const manifests = [
    ...(build.installationManifestRefs ?? []),
    ...(build.postInstallManifestRefs ?? []),
  ];
  return [
    `Secret/${build.pullSecretRef.name}`,
    ...manifests.map((ref) => `${ref.kind ?? 'ConfigMap'}/${ref.name}`),
  ];
}

/**
 * A build that has not started waits for its inputs (WaitingForInputs): a Secret or ConfigMap of
 * the operator namespace that comes, changes or goes wakes the builds that name it. Only names
 * are watched (metadata-only informers of that one namespace): the operator caches no Secret it
 * does not manage, and holds no input's data.
 */
export function buildInputWatches(cache: CacheReader, namespace: string): WatchSpec[] {
  const bundles = cache.view<CRCBundle>(BUNDLES);
  const waiting = (kind: string, object: KubeObject): string[] => {
    if (object.metadata?.namespace !== namespace) return [];
    const key = `${kind}/${object.metadata?.name}`;
    return bundles
      .list(undefined, (b) => !b.status?.build?.attempt && buildInputKeys(b).includes(key))
      .map((b) => b.metadata.name);
  };
  return [SECRETS, CONFIG_MAPS].map((type) => ({
    type,
    metadataOnlyIn: namespace,
    map: (object: KubeObject) => waiting(type.kind, object),
  }));
}
