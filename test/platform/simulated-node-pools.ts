import type { KubeConfig } from '@kubernetes/client-node';
import { NODE_POOLS } from '../../operator/api/platform-resources.js';
import { isConflict, isNotFound } from '../../operator/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { startSimulatedController } from './simulated-controller.js';
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
 * HyperShift's NodePool controller with KubeVirt workers, simulated: the workers join at once, so
 * status.replicas reaches spec.replicas; on deletion the finalizer goes (the worker VMs with it).
 */
export class SimulatedNodePools {
  private constructor(private readonly manager: Manager) {}

  static async start(options: SimulatedNodePoolsOptions): Promise<SimulatedNodePools> {
    const manager = await startSimulatedController(options.kubeConfig, (m) => ({
      name: 'simulated-hypershift-nodepools',
      forType: NODE_POOLS,
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
    return new SimulatedNodePools(manager);
  }

  async stop(): Promise<void> {
    await this.manager.stop();
  }
}

async function reconcileNodePool(
  manager: Manager,
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
      await manager.client.update(NODE_POOLS, {
        ...nodePool,
        metadata: { ...nodePool.metadata, finalizers: next },
      });
    return;
  }
  await writeNodePoolStatus(manager, options, nodePool);
}

async function writeNodePoolStatus(
  manager: Manager,
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
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'AsExpected' : 'WaitingForNodes',
        message: ready ? '' : `${replicas} of ${wanted} nodes are ready`,
        observedGeneration: nodePool.metadata?.generation,
      },
    ],
  };
  if (JSON.stringify(status) === JSON.stringify(nodePool.status ?? {})) return;
  await manager.client.updateStatus(NODE_POOLS, { ...nodePool, status });
}
