import type { KubeConfig } from '@kubernetes/client-node';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../../operator/api/platform-resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject, OwnerReference } from '../../../operator/kube/objects.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import { startSimulatedController } from '../host/simulator-host.js';
import type { Condition } from '../host/platform-kinds.js';
import { withTransitions, writeStatus } from '../host/platform-status.js';
import { HYPERSHIFT_FINALIZER, releaseVersion } from './simulated-hosted-clusters.js';

export interface NodePoolObject extends KubeObject {
  spec?: { clusterName?: string; replicas?: number; release?: { image?: string } };
  status?: Record<string, unknown>;
}

export interface SimulatedNodePoolsOptions {
  kubeConfig: KubeConfig;
  servesNamespace: (namespace: string) => boolean;
  /** Failure injection: how many workers join (default: all of spec.replicas). */
  readyReplicas?: (nodePool: NodePoolObject) => number;
}

/**
 * HyperShift's NodePool controller with KubeVirt workers, simulated: it makes the NodePool's
 * HostedCluster (spec.clusterName) its owner with a plain reference, the workers join at once, so
 * status.replicas reaches spec.replicas; on deletion the finalizer goes (the worker VMs with it).
 */
export class SimulatedNodePools {
  private constructor(private readonly host: SimulatorHost) {}

  static async start(options: SimulatedNodePoolsOptions): Promise<SimulatedNodePools> {
    const host = await startSimulatedController(options.kubeConfig, (m) => ({
      name: 'simulated-hypershift-nodepools',
      forType: NODE_POOLS,
      watches: [
        {
          // A NodePool's owner is its HostedCluster, which may come into the cache after it.
          type: HOSTED_CLUSTERS,
          map: (hc) =>
            m
              .informer<NodePoolObject>(NODE_POOLS)
              .list(
                (np) =>
                  np.metadata!.namespace === hc.metadata!.namespace &&
                  np.spec?.clusterName === hc.metadata!.name,
              )
              .map((np) => `${np.metadata!.namespace}/${np.metadata!.name}`),
        },
      ],
      reconcile: async (key) => {
        const nodePool = m.informer<NodePoolObject>(NODE_POOLS).get(key);
        if (!nodePool || !options.servesNamespace(nodePool.metadata!.namespace!)) return {};
        try {
          await reconcileNodePool(m, options, nodePool);
        } catch (error) {
          // A newer version is queued already, or the pool is gone.
          if (!isConflict(error) && !isNotFound(error)) throw error;
        }
        return {};
      },
    }));
    return new SimulatedNodePools(host);
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }
}

async function reconcileNodePool(
  host: SimulatorHost,
  options: SimulatedNodePoolsOptions,
  nodePool: NodePoolObject,
): Promise<void> {
  const finalizers = nodePool.metadata?.finalizers ?? [];
  const deleting = !!nodePool.metadata?.deletionTimestamp;
  // The finalizer comes first and goes on deletion (the worker VMs go with it).
  if (deleting || !finalizers.includes(HYPERSHIFT_FINALIZER)) {
    const next = deleting
      ? finalizers.filter((f) => f !== HYPERSHIFT_FINALIZER)
      : [...finalizers, HYPERSHIFT_FINALIZER];
    if (next.length !== finalizers.length)
      await host.client.update(NODE_POOLS, {
        ...nodePool,
        metadata: { ...nodePool.metadata, finalizers: next },
      });
    return;
  }
  if (await ensureHostedClusterOwner(host, nodePool)) return;
  await writeNodePoolStatus(host, options, nodePool);
}

/**
 * The NodePool controller's first step (nodepool_controller.go): "HostedCluster owns NodePools",
 * util.EnsureOwnerRef with a plain reference (no controller, no blockOwnerDeletion) that replaces
 * one to the same HostedCluster kind and name. True when it updated the NodePool.
 */
async function ensureHostedClusterOwner(
  host: SimulatorHost,
  nodePool: NodePoolObject,
): Promise<boolean> {
  const namespace = nodePool.metadata!.namespace!;
  const hc = host
    .informer<KubeObject>(HOSTED_CLUSTERS)
    .get(`${namespace}/${nodePool.spec?.clusterName ?? ''}`);
  if (!hc) return false;
  const plain: OwnerReference = {
    apiVersion: HOSTED_CLUSTERS.apiVersion,
    kind: HOSTED_CLUSTERS.kind,
    name: hc.metadata!.name!,
    uid: hc.metadata!.uid!,
  };
  const owners = nodePool.metadata?.ownerReferences ?? [];
  const index = owners.findIndex(
    (o) =>
      o.kind === plain.kind &&
      o.name === plain.name &&
      (o.apiVersion === plain.apiVersion || o.uid === plain.uid),
  );
  if (index >= 0 && JSON.stringify(owners[index]) === JSON.stringify(plain)) return false;
  const next = index >= 0 ? owners.map((o, i) => (i === index ? plain : o)) : [...owners, plain];
  await host.client.update(NODE_POOLS, {
    ...nodePool,
    metadata: { ...nodePool.metadata, ownerReferences: next },
  });
  return true;
}

async function writeNodePoolStatus(
  host: SimulatorHost,
  options: SimulatedNodePoolsOptions,
  nodePool: NodePoolObject,
): Promise<void> {
  const wanted = nodePool.spec?.replicas ?? 0;
  const replicas = Math.min(wanted, options.readyReplicas?.(nodePool) ?? wanted);
  const ready = replicas >= wanted;
  const status = {
    ...nodePool.status,
    replicas,
    version: releaseVersion(nodePool.spec?.release?.image),
    conditions: withTransitions((nodePool.status?.conditions ?? []) as Condition[], [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'AsExpected' : 'WaitingForNodes',
        message: ready ? '' : `${replicas} of ${wanted} nodes are ready`,
        observedGeneration: nodePool.metadata?.generation,
      },
    ]),
  };
  await writeStatus(host.client, NODE_POOLS, nodePool, status);
}
