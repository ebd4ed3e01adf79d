import { LABEL_MANAGED_BY, LABEL_POOL, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance, ClusterPool } from '../../api/resources.js';
import { INSTANCES, POOLS } from '../../api/resources.js';

/** The ClusterInstance a pool creates (spec §3.13): labelled, controlled by the pool, its template copied. */
export function buildPoolInstance(pool: ClusterPool, name: string): ClusterInstance {
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: {
      name,
      namespace: pool.metadata!.namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_POOL]: pool.metadata!.name! },
      ownerReferences: [
        {
          apiVersion: POOLS.apiVersion,
          kind: POOLS.kind,
          name: pool.metadata!.name!,
          uid: pool.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      type: pool.spec.type,
      poolRef: { name: pool.metadata!.name! },
      template: structuredClone(pool.spec.template),
    },
  };
}
