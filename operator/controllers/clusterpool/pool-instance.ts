import { LABEL_MANAGED_BY, LABEL_POOL, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES, POOLS } from '../../../client/api/resources.js';
import { controllerReference } from '../../kube/ownership.js';
import type { Pool } from './pool-conditions.js';

/**
 * The release a pool that follows a VersionStream gives its new instances (stream-release.ts):
 * the version, and the hcp release image or the crc bundle version it comes as.
 */
export interface InstanceRelease {
  ocpVersion: string;
  releaseImage?: string;
  crcVersion?: string;
}

/**
 * The ClusterInstance a pool creates (docs/reference/kinds.md#pool-instances): labelled, controlled
 * by the pool, its template copied; a pool that follows a stream writes the stream's release in
 * place of the reference, so an instance keeps the release it was made with.
 */
export function buildPoolInstance(
  pool: Pool,
  name: string,
  release?: InstanceRelease,
): ClusterInstance {
  const { name: poolName, namespace } = pool.metadata;
  // The instance gets the stream's release instead of the reference (its schema has none).
  const template = structuredClone(pool.spec.template);
  delete template.versionStreamRef;
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: {
      name,
      namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_POOL]: poolName },
      ownerReferences: [controllerReference(POOLS, pool)],
    },
    spec: {
      type: pool.spec.type,
      poolRef: { name: poolName },
      ...(pool.spec.provisioningTimeout
        ? { provisioningTimeout: pool.spec.provisioningTimeout }
        : {}),
      template: {
        ...template,
        ...release,
        ocpVersion: release?.ocpVersion ?? template.ocpVersion ?? '',
      },
    },
  };
}
