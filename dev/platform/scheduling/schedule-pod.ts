import { fitErrorMessage } from './fit-error.js';
import type { SchedulingNode, SchedulingPodSpec } from './node-filters.js';
import { filterNode } from './node-filters.js';
import { podRequests } from './resources.js';

/** Where a pod goes, or the scheduler's words for why it fits nowhere. */
export type Placement = { node: string } | { unschedulable: string };

/** The share of a node's allocatable cpu and memory that would be free with the pod on it. */
function freeShare(node: SchedulingNode, cpu: number, memory: number): number {
  const share = (free: number, used: number, asked: number): number =>
    free > 0 ? (free - used - asked) / free : 0;
  return (
    share(node.allocatable.milliCpu, node.requested.milliCpu, cpu) +
    share(node.allocatable.memory, node.requested.memory, memory)
  );
}

/**
 * One scheduling cycle for a pod over a platform's nodes (pkg/scheduler/schedule_one.go,
 * schedulePod): the nodes that pass every filter, of which the one left with the most free cpu and
 * memory (the NodeResourcesLeastAllocated score, plugins/noderesources/least_allocated.go; other
 * scores are not modelled), ties broken by name; or, when none passes, the FitError's message.
 */
export function schedulePod(spec: SchedulingPodSpec, nodes: readonly SchedulingNode[]): Placement {
  const request = podRequests(spec);
  const rejections = nodes.map((node) => ({ node, rejection: filterNode(spec, request, node) }));
  const feasible = rejections.filter((r) => !r.rejection).map((r) => r.node);
  if (feasible.length === 0)
    return { unschedulable: fitErrorMessage(rejections.map((r) => r.rejection!)) };
  const score = (n: SchedulingNode): number => freeShare(n, request.milliCpu, request.memory);
  const [best] = [...feasible].sort(
    (a, b) => score(b) - score(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return { node: best!.name };
}
