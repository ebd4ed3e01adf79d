import type { KubeConfig } from '@kubernetes/client-node';
import { provisioningGrant } from '../../operator/controllers/binding/pool-membership.js';
import {
  FINALIZER_POOL_PROTECTION,
  LABEL_CLUSTER_INSTANCE,
  LABEL_MANAGED_BY,
  LABEL_NAMESPACE_ENABLED,
  LABEL_POOL,
  MANAGED_BY_OPERATOR,
} from '../../operator/api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../operator/api/resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS, SECRETS } from '../../operator/api/resources.js';
import { kubeconfigDigest } from '../../operator/controllers/clusterinstance/core/kubeconfig-secret.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../operator/kube/api-error.js';
import { inBatches } from '../support/batches.js';
import { waitForList } from '../../dev/support/wait-for.js';

export async function enableNamespace(api: ApiClient, namespace: string): Promise<void> {
  await api.patch(
    NAMESPACES,
    { name: namespace },
    { metadata: { labels: { [LABEL_NAMESPACE_ENABLED]: 'true' } } },
  );
}

export function hcpPool(
  namespace: string,
  name: string,
  sizes: Partial<ClusterPool['spec']> = {},
): ClusterPool {
  return {
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name, namespace },
    spec: {
      type: 'hcp',
      maxSize: 3,
      minSize: 0,
      warmSpares: 0,
      template: {
        releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.10-multi',
        ocpVersion: '4.16.10',
        memory: '8Gi',
        cores: 2,
      },
      ...sizes,
    },
  };
}

export function lease(namespace: string, name: string, pool: string, ttl?: string): ClusterLease {
  return {
    apiVersion: LEASES.apiVersion,
    kind: LEASES.kind,
    metadata: { name, namespace },
    spec: { poolRef: { name: pool }, ...(ttl ? { ttl } : {}) },
  };
}

/** An instance of a pool as the pool controller would create it (for tests that pre-fill a pool). */
export function poolInstance(namespace: string, pool: string, name: string): ClusterInstance {
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: {
      name,
      namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_POOL]: pool },
    },
    spec: {
      type: 'hcp',
      poolRef: { name: pool },
      template: { releaseImage: 'quay.io/x:1', ocpVersion: '4.16.10', memory: '8Gi', cores: 2 },
    },
  };
}

/**
 * Creates an instance of a pool as the pool controller does: the create, then the authorization
 * to provision in its status, which makes it the pool's (pool-membership.ts).
 */
export async function createPoolInstance(
  api: ApiClient,
  instance: ClusterInstance,
): Promise<ClusterInstance> {
  const created = await api.create<ClusterInstance>(INSTANCES, instance);
  const pool = instance.spec.poolRef?.name ?? '';
  return api.updateStatus(INSTANCES, { ...created, status: provisioningGrant(pool, Date.now()) });
}

/**
 * Plays the ClusterInstance controller's part for pool and lease tests (an operator without a
 * platform runs no instance controller): the instance gets its kubeconfig Secret (a placeholder, or `kubeconfig`
 * when the test needs a working one) and becomes Ready, reporting the version its template asks
 * for, or Failed.
 */
export async function settleInstance(
  api: ApiClient,
  namespace: string,
  name: string,
  outcome: 'Ready' | 'Failed' = 'Ready',
  kubeconfig = `apiVersion: v1\nkind: Config\nclusters: [{name: ${name}, cluster: {server: "https://api.${name}.example:6443"}}]\n`,
): Promise<ClusterInstance> {
  const owner = await api.get<ClusterInstance>(INSTANCES, name, namespace);
  const version = owner.spec.template.ocpVersion;
  if (outcome === 'Ready') {
    await api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `${name}-kubeconfig`,
        namespace,
        labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_CLUSTER_INSTANCE]: name },
        // Controlled by the instance, as the instance controller publishes it.
        ownerReferences: [
          {
            apiVersion: INSTANCES.apiVersion,
            kind: INSTANCES.kind,
            name,
            uid: owner.metadata!.uid!,
            controller: true,
          },
        ],
      },
      data: {
        kubeconfig: Buffer.from(kubeconfig).toString('base64'),
        ocpVersion: Buffer.from(version).toString('base64'),
      },
    } as never);
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (;;) {
    const instance = await api.get<ClusterInstance>(INSTANCES, name, namespace);
    const ready = outcome === 'Ready';
    try {
      return await api.updateStatus(INSTANCES, {
        ...instance,
        status: {
          ...instance.status,
          provisioning:
            instance.status?.provisioning ??
            provisioningGrant(instance.spec.poolRef?.name ?? '', Date.now()).provisioning,
          phase: outcome,
          ...(ready
            ? {
                kubeconfigSecretRef: { name: `${name}-kubeconfig` },
                kubeconfigSHA256: kubeconfigDigest(kubeconfig),
                ocpVersion: version,
                topology: 'hcp',
                apiEndpoint: `https://api.${name}.example:6443`,
              }
            : {}),
          conditions: [
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'Ready' : 'ProvisioningFailed',
              message: ready
                ? 'guest API answers'
                : 'DataVolume import failed: 404 from the mirror',
              lastTransitionTime: now,
            },
          ],
        },
      });
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
}

/** Fills a pool with `count` Ready instances named `<pool>-<n>`, as its controller would have. */
export async function fillPool(
  api: ApiClient,
  namespace: string,
  pool: string,
  count: number,
): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${pool}-${i}`);
  // Pool controllers of other test files (one control plane is shared) may create some of these
  // names first, exactly as this pool's controller would: those are filled in the same way.
  await inBatches(names, 25, (name) =>
    createPoolInstance(api, poolInstance(namespace, pool, name)).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    }),
  );
  await inBatches(names, 25, (name) => settleInstance(api, namespace, name));
  return names;
}

/**
 * Waits until no pool of a namespace carries the pool-protection finalizer, which the pool
 * controller removes once the pool has no instance left. A manager must still run; stopped
 * before this, it would leave the namespace unable to go.
 */
export async function poolsUnprotected(
  kubeConfig: KubeConfig,
  namespace: string,
  timeoutMs = 60_000,
): Promise<void> {
  await waitForList<ClusterPool>(kubeConfig, {
    type: POOLS,
    namespace,
    until: (pools) =>
      pools.every((p) => !p.metadata?.finalizers?.includes(FINALIZER_POOL_PROTECTION)),
    description: 'the pools to drop their protection finalizer',
    timeoutMs,
  });
}

/**
 * Deletes every lease of a namespace, then every pool, and waits until they are gone. Leases
 * carry the release finalizer and pools with instances the pool-protection one, so a manager
 * must still run: stop it only after this. (Instances of the tests' own making that carry no
 * label of a pool stay.)
 */
export async function releaseLeasesAndPools(
  api: ApiClient,
  kubeConfig: KubeConfig,
  namespace: string,
  timeoutMs = 120_000,
): Promise<void> {
  const leases = await api.list<ClusterLease>(LEASES, { namespace });
  await inBatches(leases.items, 50, (l) =>
    api.delete(LEASES, l.metadata!.name!, namespace).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
  await waitForList(kubeConfig, {
    type: LEASES,
    namespace,
    until: (items) => items.length === 0,
    description: 'every lease to be released',
    timeoutMs,
  });
  const pools = await api.list<ClusterPool>(POOLS, { namespace });
  await inBatches(pools.items, 50, (p) =>
    api.delete(POOLS, p.metadata!.name!, namespace).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
  await waitForList(kubeConfig, {
    type: POOLS,
    namespace,
    until: (items) => items.length === 0,
    description: 'every pool to be deleted',
    timeoutMs,
  });
}

/**
 * Waits until a namespace has no ClusterInstance left (their finalizers tear the backing objects
 * down) and its pools no protection finalizer, so the instance and pool controllers must still
 * run. Stop them only after this.
 */
export async function instancesTornDown(
  kubeConfig: KubeConfig,
  namespace: string,
  timeoutMs = 120_000,
): Promise<void> {
  await waitForList(kubeConfig, {
    type: INSTANCES,
    namespace,
    until: (items) => items.length === 0,
    description: `every instance in ${namespace} to be torn down`,
    timeoutMs,
  });
  await poolsUnprotected(kubeConfig, namespace);
}
