import { quantityBytes } from '../../../operator/kube/quantity.js';

/** What a pod asks of a node, in the scheduler's units: milli-CPU, bytes, pods. */
export interface Resources {
  milliCpu: number;
  memory: number;
  pods: number;
}

export type ResourceList = Record<string, string | undefined> | undefined;

export interface ContainerLike {
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export interface PodSpecLike {
  containers?: ContainerLike[];
  initContainers?: ContainerLike[];
  overhead?: ResourceList;
}

/** Milli-CPU of a quantity such as 4, 0.5 or 100m; NaN when it is not one. */
export function milliCpu(quantity: string): number {
  const milli = /^(\d+(?:\.\d+)?)m$/.exec(quantity);
  if (milli) return Math.ceil(Number(milli[1]));
  // Fractions of a milli-CPU round up, as resource.Quantity.MilliValue does.
  return Math.ceil(quantityBytes(quantity) * 1000);
}

const parse = (list: ResourceList): Resources => ({
  milliCpu: list?.cpu ? milliCpu(list.cpu) : 0,
  memory: list?.memory ? quantityBytes(list.memory) : 0,
  pods: 0,
});

/**
 * A container's requests; a limit without a request counts as the request, as the API server
 * defaults it (kubernetes pkg/apis/core/v1/defaults.go, SetDefaults_Pod).
 */
function containerRequests(container: ContainerLike): Resources {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  return parse({ cpu: requests.cpu ?? limits.cpu, memory: requests.memory ?? limits.memory });
}

const add = (a: Resources, b: Resources): Resources => ({
  milliCpu: a.milliCpu + b.milliCpu,
  memory: a.memory + b.memory,
  pods: a.pods + b.pods,
});

const max = (a: Resources, b: Resources): Resources => ({
  milliCpu: Math.max(a.milliCpu, b.milliCpu),
  memory: Math.max(a.memory, b.memory),
  pods: Math.max(a.pods, b.pods),
});

/**
 * A pod's requests as NodeResourcesFit computes them (component-helpers
 * resource/helpers.go, PodRequests): the sum of its containers, at least the largest init
 * container (init containers run one after another), plus the pod overhead; one pod. Sidecar
 * init containers (restartPolicy Always) and pod-level resources are not modelled.
 */
export function podRequests(spec: PodSpecLike): Resources {
  const containers = (spec.containers ?? []).map(containerRequests).reduce(add, ZERO);
  const init = (spec.initContainers ?? []).map(containerRequests).reduce(max, ZERO);
  return { ...add(max(containers, init), parse(spec.overhead)), pods: 1 };
}

export const ZERO: Resources = { milliCpu: 0, memory: 0, pods: 0 };
export { add as addResources };
