import { PODS } from '../../../client/api/core-resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import type { Condition } from '../host/platform-kinds.js';
import { launcherPlacement, launcherRequests } from '../scheduling/launcher-resources.js';
import type { SchedulingPod } from '../scheduling/scheduling-nodes.js';
import { controlPlaneNamespaceOf } from './simulated-hosted-clusters.js';

/** The annotation naming a worker pod's NodePool, `<namespace>/<name>` (HyperShift's, on Machines). */
export const NODE_POOL_ANNOTATION = 'hypershift.openshift.io/nodePool';
const NODE_POOL_UID = 'sim.hypershift.openshift.io/nodepool-uid';

export interface KubevirtNodePool extends KubeObject {
  spec?: {
    clusterName?: string;
    replicas?: number;
    platform?: {
      kubevirt?: {
        compute?: { memory?: string; cores?: number };
        nodeSelector?: Record<string, string>;
      };
    };
  };
}

/**
 * The launcher pod of one KubeVirt worker of a NodePool, in the hosted control plane namespace, as
 * HyperShift's KubeVirt machine template makes the VM (hypershift-operator/controllers/nodepool/
 * kubevirt/kubevirt.go, virtualMachineTemplateBase; Burstable QoS): guest memory and cores from
 * spec.platform.kubevirt.compute (8Gi and 2 by default), its nodeSelector. Only the launcher pod is
 * simulated: there is no VM or guest behind a worker (docs/adr/0044-the-simulated-platform-schedules.md).
 */
function workerPod(nodePool: KubevirtNodePool, index: number): SchedulingPod {
  const kubevirt = nodePool.spec?.platform?.kubevirt;
  const vmi = {
    nodeSelector: kubevirt?.nodeSelector,
    domain: {
      memory: { guest: kubevirt?.compute?.memory ?? '8Gi' },
      cpu: { cores: kubevirt?.compute?.cores ?? 2 },
    },
  };
  const { name, namespace, uid } = nodePool.metadata!;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `virt-launcher-${name}-${index}`,
      namespace: controlPlaneNamespaceOf({
        metadata: { namespace, name: nodePool.spec?.clusterName ?? '' },
      }),
      labels: { 'kubevirt.io': 'virt-launcher', [NODE_POOL_UID]: uid! },
      annotations: { [NODE_POOL_ANNOTATION]: `${namespace}/${name}` },
    },
    spec: {
      ...launcherPlacement(vmi),
      containers: [
        {
          name: 'compute',
          image: 'registry.example.test/kubevirt/virt-launcher:simulated',
          resources: { requests: launcherRequests(vmi) },
        } as never,
      ],
    },
  };
}

/** The worker pods of a NodePool (of any UID: those of an older one go). */
export function workerPods(host: SimulatorHost, key: string): SchedulingPod[] {
  return host
    .informer<SchedulingPod>(PODS)
    .list((pod) => pod.metadata?.annotations?.[NODE_POOL_ANNOTATION] === key);
}

/** Deletes a worker pod by UID at once: no kubelet runs it, so none would finish its deletion. */
export async function removeWorker(host: SimulatorHost, pod: KubeObject): Promise<void> {
  try {
    await host.client.delete(PODS, pod.metadata!.name!, pod.metadata!.namespace, {
      uid: pod.metadata!.uid,
      gracePeriodSeconds: 0,
    });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}

/**
 * One worker pod per replica (those beyond, being deleted, or of an older NodePool go); the
 * current ones. False while the control plane namespace is not there yet.
 */
export async function ensureWorkers(
  host: SimulatorHost,
  nodePool: KubevirtNodePool,
): Promise<SchedulingPod[] | false> {
  const key = `${nodePool.metadata!.namespace}/${nodePool.metadata!.name}`;
  const wanted = nodePool.spec?.replicas ?? 0;
  const names = new Set(
    Array.from({ length: wanted }, (_, i) => workerPod(nodePool, i).metadata!.name),
  );
  const current: SchedulingPod[] = [];
  for (const pod of workerPods(host, key)) {
    const stale =
      pod.metadata?.deletionTimestamp ||
      pod.metadata?.labels?.[NODE_POOL_UID] !== nodePool.metadata!.uid ||
      !names.has(pod.metadata!.name);
    if (stale) await removeWorker(host, pod);
    else current.push(pod);
  }
  const have = new Set(current.map((pod) => pod.metadata!.name));
  for (let i = 0; i < wanted; i++) {
    const pod = workerPod(nodePool, i);
    if (have.has(pod.metadata!.name)) continue;
    try {
      current.push(await host.client.create(PODS, pod));
    } catch (error) {
      if (isNotFound(error)) return false;
      // Made by an earlier pass the cache has not shown yet: its event brings the next pass.
      if (!isAlreadyExists(error)) throw error;
    }
  }
  return current;
}

/**
 * AllMachinesReady as HyperShift aggregates its Machines' conditions
 * (hypershift-operator/controllers/nodepool/conditions.go, setAllMachinesReadyCondition and
 * aggregateMachineReasonsAndMessages): `<n> of <m> machines are not ready`, then per reason
 * (sorted) `Machine <name>: <reason>: <message>` lines; a worker whose launcher pod fits no node
 * has the pod's PodScheduled reason and the scheduler's message, as its KubevirtMachine surfaces
 * the VM's.
 */
export function allMachinesReady(
  nodePool: KubevirtNodePool,
  workers: readonly SchedulingPod[],
): Omit<Condition, 'lastTransitionTime'> {
  const wanted = nodePool.spec?.replicas ?? 0;
  const byReason = new Map<string, string[]>();
  for (const pod of workers.filter((p) => !p.spec.nodeName)) {
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const reason = scheduled?.reason || 'Pending';
    const message = scheduled?.message || 'waiting for the launcher pod to be scheduled';
    const machine = pod.metadata!.name!.replace(/^virt-launcher-/, '');
    byReason.set(reason, [
      ...(byReason.get(reason) ?? []),
      `Machine ${machine}: ${reason}: ${message}\n`,
    ]);
  }
  const notReady = wanted - workers.filter((p) => p.spec.nodeName).length;
  const observedGeneration = nodePool.metadata?.generation;
  if (notReady <= 0)
    return {
      type: 'AllMachinesReady',
      status: 'True',
      reason: 'AsExpected',
      message: 'All is well',
      observedGeneration,
    };
  const reasons = [...byReason.keys()].sort();
  const lines = reasons.flatMap((r) => byReason.get(r)!.sort());
  return {
    type: 'AllMachinesReady',
    status: 'False',
    reason: reasons.join(',') || 'Pending',
    message: `${notReady} of ${wanted} machines are not ready\n${lines.join('')}`,
    observedGeneration,
  };
}
