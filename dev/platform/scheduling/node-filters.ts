import type { PodSpecLike, Resources } from './resources.js';

/*
 * The Filter plugins of kube-scheduler's default profile that the simulated platform needs, in
 * their order (kubernetes pkg/scheduler/apis/config/v1/default_plugins.go): NodeUnschedulable,
 * TaintToleration, NodeAffinity, NodeResourcesFit. A node is rejected by the first that fails
 * (pkg/scheduler/framework/runtime/framework.go, RunFilterPlugins).
 */

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
  };
}

/** What the filters read of a pod. */
export interface SchedulingPodSpec extends PodSpecLike {
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
}

/** What the filters read of a node, with what its bound pods already request. */
export interface SchedulingNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  ready: boolean;
  allocatable: Resources;
  requested: Resources;
}

/**
 * Why a node was rejected. `resolvable` is false for UnschedulableAndUnresolvable: preemption
 * cannot help there (pkg/scheduler/framework/preemption/preemption.go, nodesWherePreemptionMightHelp).
 */
export interface Rejection {
  reasons: string[];
  resolvable: boolean;
}

/** The taint a node gets while it is not Ready (node lifecycle controller, TaintNodesByCondition). */
export const NOT_READY_TAINT: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const UNSCHEDULABLE_TAINT: Taint = {
  key: 'node.kubernetes.io/unschedulable',
  effect: 'NoSchedule',
};

/**
 * Whether a toleration tolerates a taint (staging/src/k8s.io/api/core/v1/toleration.go,
 * ToleratesTaint): the effect matches or is empty; an empty key with Exists matches every key;
 * Exists ignores the value, Equal (the default) compares it.
 */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  const operator = toleration.operator || 'Equal';
  if (toleration.key ? toleration.key !== taint.key : operator !== 'Exists') return false;
  if (operator === 'Exists') return true;
  return operator === 'Equal' && (toleration.value ?? '') === (taint.value ?? '');
}

const untolerated = (taint: Taint, tolerations: readonly Toleration[]): boolean =>
  !tolerations.some((t) => tolerates(t, taint));

/**
 * NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go):
 * a cordoned node takes only pods that tolerate node.kubernetes.io/unschedulable:NoSchedule.
 */
function nodeUnschedulable(spec: SchedulingPodSpec, node: SchedulingNode): Rejection | undefined {
  if (!node.unschedulable || !untolerated(UNSCHEDULABLE_TAINT, spec.tolerations ?? [])) return;
  return { reasons: ['node(s) were unschedulable'], resolvable: false };
}

/**
 * TaintToleration (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go, Filter):
 * a NoSchedule or NoExecute taint no toleration tolerates rejects the node; the reason names no
 * taint. A node that is not Ready counts as carrying the not-ready taint the node lifecycle
 * controller would add (pkg/controller/nodelifecycle), which does not run here.
 */
function taintToleration(spec: SchedulingPodSpec, node: SchedulingNode): Rejection | undefined {
  const taints = node.ready ? node.taints : [...node.taints, NOT_READY_TAINT];
  const blocking = taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (!blocking.some((taint) => untolerated(taint, spec.tolerations ?? []))) return;
  return { reasons: ['node(s) had untolerated taint(s)'], resolvable: false };
}

/** Gt and Lt: both sides whole numbers, compared as such. */
function compares(operator: string, label: string, bound: string | undefined): boolean {
  const [node, limit] = [Number.parseInt(label, 10), Number.parseInt(bound ?? '', 10)];
  if (Number.isNaN(node) || Number.isNaN(limit)) return false;
  return operator === 'Gt' ? node > limit : node < limit;
}

/**
 * One requirement against node labels (staging/src/k8s.io/component-helpers/scheduling/corev1/
 * nodeaffinity/nodeaffinity.go, via labels.Selector): In, NotIn, Exists, DoesNotExist, Gt, Lt.
 */
function matchesRequirement(req: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt':
      return has && compares(req.operator, value!, values[0]);
    default:
      return false;
  }
}

/**
 * A term matches when all its expressions do; an empty term matches nothing. matchFields only
 * knows metadata.name (nodeaffinity.go, NewNodeSelector).
 */
function matchesTerm(term: NodeSelectorTerm, node: SchedulingNode): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const nameField = { 'metadata.name': node.name };
  return (
    expressions.every((r) => matchesRequirement(r, node.labels)) &&
    fields.every((r) => r.key === 'metadata.name' && matchesRequirement(r, nameField))
  );
}

/**
 * NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go, Filter, via
 * component-helpers nodeaffinity.GetRequiredNodeAffinity): every nodeSelector label, and one of
 * the required terms (ORed) when there are any.
 */
function nodeAffinity(spec: SchedulingPodSpec, node: SchedulingNode): Rejection | undefined {
  const selector = Object.entries(spec.nodeSelector ?? {});
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const selectorOk = selector.every(([k, v]) => node.labels[k] === v);
  const termsOk = !required || (required.nodeSelectorTerms ?? []).some((t) => matchesTerm(t, node));
  if (selectorOk && termsOk) return;
  return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
}

/**
 * NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go, fitsRequest): pods
 * first, then cpu and memory, each against allocatable minus what the node's pods request; a
 * resource the pod does not request is not checked. Every shortfall is a reason.
 */
function resourcesFit(request: Resources, node: SchedulingNode): Rejection | undefined {
  const { allocatable: free, requested: used } = node;
  const reasons: string[] = [];
  if (used.pods + 1 > free.pods) reasons.push('Too many pods');
  if (request.milliCpu > 0 && request.milliCpu > free.milliCpu - used.milliCpu)
    reasons.push('Insufficient cpu');
  if (request.memory > 0 && request.memory > free.memory - used.memory)
    reasons.push('Insufficient memory');
  return reasons.length ? { reasons, resolvable: true } : undefined;
}

/** Why the pod does not fit the node (the first filter that rejects it), or undefined. */
export function filterNode(
  spec: SchedulingPodSpec,
  request: Resources,
  node: SchedulingNode,
): Rejection | undefined {
  return (
    nodeUnschedulable(spec, node) ??
    taintToleration(spec, node) ??
    nodeAffinity(spec, node) ??
    resourcesFit(request, node)
  );
}
