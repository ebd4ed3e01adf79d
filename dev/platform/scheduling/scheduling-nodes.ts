import type { KubeObject } from '../../../operator/kube/objects.js';
import type { SchedulingNode, SchedulingPodSpec, Taint } from './node-filters.js';
import type { Resources } from './resources.js';
import { addResources, milliCpu, podRequests, ZERO } from './resources.js';
import { quantityBytes } from '../../../operator/kube/quantity.js';

/** The Node fields the scheduler reads. */
export interface NodeObject extends KubeObject {
  spec?: { taints?: Taint[]; unschedulable?: boolean };
  status?: {
    allocatable?: Record<string, string>;
    conditions?: { type: string; status: string }[];
  };
}

/** The Pod fields the scheduler reads and writes. */
export interface SchedulingPod extends KubeObject {
  spec: SchedulingPodSpec & { nodeName?: string; schedulerName?: string };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

export const isTerminal = (pod: SchedulingPod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function allocatable(node: NodeObject): Resources {
  const list = node.status?.allocatable ?? {};
  return {
    milliCpu: list.cpu ? milliCpu(list.cpu) : 0,
    memory: list.memory ? quantityBytes(list.memory) : 0,
    pods: Number(list.pods ?? 0),
  };
}

/**
 * The scheduler's view of its nodes (its cache, pkg/scheduler/backend/cache): each with what the
 * pods bound to it request; terminal pods hold nothing (the scheduler's informer leaves them out).
 */
export function schedulingNodes(
  nodes: readonly NodeObject[],
  bound: readonly { node: string; spec: SchedulingPodSpec }[],
): SchedulingNode[] {
  return nodes.map((node) => {
    const name = node.metadata!.name!;
    const requested = bound
      .filter((pod) => pod.node === name)
      .map((pod) => podRequests(pod.spec))
      .reduce(addResources, ZERO);
    return {
      name,
      labels: node.metadata?.labels ?? {},
      taints: node.spec?.taints ?? [],
      unschedulable: !!node.spec?.unschedulable,
      ready:
        node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      allocatable: allocatable(node),
      requested,
    };
  });
}
