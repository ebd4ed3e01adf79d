import { LABEL_MANAGED_BY, LABEL_POOL, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance } from '../../api/resources.js';
import { INSTANCES, POOLS } from '../../api/resources.js';
import { controllerReference } from '../../kube/ownership.js';
import type { Pool } from './pool-conditions.js';

/**
 * The ClusterInstance a pool creates (docs/reference/kinds.md#pool-instances): labelled, controlled
 * by the pool, its template copied.
 */
export function buildPoolInstance(pool: Pool, name: string): ClusterInstance {
  const { name: poolName, namespace } = pool.metadata;
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
      template: structuredClone(pool.spec.template),
    },
  };
}
