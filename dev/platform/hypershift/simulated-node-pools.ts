import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../../operator/api/platform-resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject, OwnerReference } from '../../../operator/kube/objects.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import { startSimulatedController } from '../host/simulator-host.js';
import type { Condition } from '../host/platform-kinds.js';
import { withTransitions, writeStatus } from '../host/platform-status.js';
import { HYPERSHIFT_FINALIZER, releaseVersion } from './simulated-hosted-clusters.js';
import { PODS } from '../../../client/api/core-resources.js';
import type { PassResult } from '../host/simulated-controller.js';
import type { KubevirtNodePool } from './nodepool-workers.js';
import {
  allMachinesReady,
  ensureWorkers,
  NODE_POOL_ANNOTATION,
  removeWorker,
  workerPods,
} from './nodepool-workers.js';

export interface NodePoolObject extends KubevirtNodePool {
  spec?: KubevirtNodePool['spec'] & { release?: { image?: string } };
  status?: Record<string, unknown>;
}

/** While the hosted control plane namespace is not there yet, the workers wait for it. */
const NAMESPACE_RECHECK_MS = 200;

export interface SimulatedNodePoolsOptions {
  kubeConfig: ClusterAccess;
  servesNamespace: (namespace: string) => boolean;
  /** Failure injection: how many workers join (default: all of spec.replicas). */
  readyReplicas?: (nodePool: NodePoolObject) => number;
}

/**
 * HyperShift's NodePool controller with KubeVirt workers, simulated: it makes the NodePool's
 * HostedCluster (spec.clusterName) its owner with a plain reference, and gives each replica a
 * worker: a launcher pod in the hosted control plane namespace (nodepool-workers.ts) that the
 * platform's scheduler places. A worker joins once its pod is bound, so status.replicas counts
 * the bound ones; AllMachinesReady and Ready say why the others have not (the scheduler's
 * message). On deletion the worker pods go, then the finalizer.
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
        {
          // A worker pod bound, unschedulable or gone.
          type: PODS,
          map: (pod) => {
            const owner = pod.metadata?.annotations?.[NODE_POOL_ANNOTATION];
            return owner ? [owner] : [];
          },
        },
      ],
      reconcile: async (key) => {
        if (!options.servesNamespace(key.split('/')[0]!)) return {};
        const nodePool = m.informer<NodePoolObject>(NODE_POOLS).get(key);
        // The kubelet's part for the workers of a NodePool that is gone.
        if (!nodePool) {
          for (const pod of workerPods(m, key)) await removeWorker(m, pod);
          return {};
        }
        try {
          return await reconcileNodePool(m, options, nodePool);
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
): Promise<PassResult> {
  const finalizers = nodePool.metadata?.finalizers ?? [];
  const deleting = !!nodePool.metadata?.deletionTimestamp;
  const key = `${nodePool.metadata!.namespace}/${nodePool.metadata!.name}`;
  if (deleting) for (const pod of workerPods(host, key)) await removeWorker(host, pod);
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
  const workers = await ensureWorkers(host, nodePool);
  if (!workers) return { requeueAfterMs: NAMESPACE_RECHECK_MS };
  await writeNodePoolStatus(host, options, nodePool, workers);
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

/**
 * status.replicas is what HyperShift copies from the MachineDeployment's available replicas
 * (hypershift-operator/controllers/nodepool/capi.go, reconcileMachineDeployment), whose spec
 * follows spec.replicas (setMachineDeploymentReplicas): a NodePool scaled to 0 loses its workers
 * (ensureWorkers removes their pods) and reports 0; scaled back up, new workers join once bound.
 */
async function writeNodePoolStatus(
  host: SimulatorHost,
  options: SimulatedNodePoolsOptions,
  nodePool: NodePoolObject,
  workers: Awaited<ReturnType<typeof ensureWorkers>> & object,
): Promise<void> {
  const wanted = nodePool.spec?.replicas ?? 0;
  const joined = workers.filter((pod) => pod.spec.nodeName).length;
  const replicas = Math.min(joined, options.readyReplicas?.(nodePool) ?? wanted);
  const ready = replicas >= wanted;
  const machines = allMachinesReady(nodePool, workers);
  const why = machines.status === 'False' ? `: ${machines.message?.trimEnd()}` : '';
  const status = {
    ...nodePool.status,
    replicas,
    version: releaseVersion(nodePool.spec?.release?.image),
    conditions: withTransitions((nodePool.status?.conditions ?? []) as Condition[], [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'AsExpected' : 'WaitingForNodes',
        message: ready ? '' : `${replicas} of ${wanted} nodes are ready${why}`,
        observedGeneration: nodePool.metadata?.generation,
      },
      machines,
    ]),
  };
  await writeStatus(host.client, NODE_POOLS, nodePool, status);
}
