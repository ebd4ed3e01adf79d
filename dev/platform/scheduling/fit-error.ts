import type { Rejection } from './node-filters.js';

/** Counted reasons, `<count> <reason>`, sorted as strings (Go's sort.Strings: by code unit). */
function histogram(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => `${count} ${reason}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(', ');
}

/**
 * Why preemption cannot place the pod (pkg/scheduler/framework/preemption/preemption.go,
 * Evaluator.findCandidates): nodes rejected as UnschedulableAndUnresolvable are not helped by it;
 * on the others no pod of lower priority could be evicted, as every pod here has priority 0.
 */
function preemptionMessage(rejections: readonly Rejection[]): string {
  const reasons = rejections.map((r) =>
    r.resolvable
      ? 'No preemption victims found for incoming pod'
      : 'Preemption is not helpful for scheduling',
  );
  return `preemption: 0/${rejections.length} nodes are available: ${histogram(reasons)}.`;
}

/**
 * The message of a PodScheduled=False (Unschedulable) condition, as kube-scheduler writes it
 * (pkg/scheduler/framework/types.go, FitError.Error): `0/N nodes are available: ` and the sorted
 * histogram of the filters' reasons, then the PostFilter plugins' messages joined by ", "
 * (pkg/scheduler/framework/runtime/framework.go, RunPostFilterPlugins): DynamicResources' for a
 * pod without claims (plugins/dynamicresources/dynamicresources.go, PostFilter), then
 * DefaultPreemption's. With no node at all the scheduler says ErrNoNodesAvailable
 * (pkg/scheduler/schedule_one.go).
 */
export function fitErrorMessage(rejections: readonly Rejection[]): string {
  if (rejections.length === 0) return 'no nodes available to schedule pods';
  const filters = histogram(rejections.flatMap((r) => r.reasons));
  const head = `0/${rejections.length} nodes are available:${filters ? ` ${filters}.` : ''}`;
  return `${head} no new claims to deallocate, ${preemptionMessage(rejections)}`;
}
