import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { NODES } from '../../../operator/api/platform-resources.js';
import { kubeletReadyCondition } from '../../guest/kubelet-ready.js';
import { KUBEVIRT_SCHEDULABLE } from '../scheduling/launcher-resources.js';
import type { Taint } from '../scheduling/node-filters.js';
import { NOT_READY_TAINT } from '../scheduling/node-filters.js';

/** One node of a simulated platform (docs/adr/0044-the-simulated-platform-schedules.md). */
export interface SimulatedNodeSpec {
  /** Appended to the platform's node name prefix (`sim-node-<id>-<suffix>`); none for the first. */
  suffix?: string;
  /** Allocatable cpu and memory (as a kubelet reports capacity, nothing reserved). */
  cpu: string;
  memory: string;
  /** Allocatable pods (110 by default, the kubelet's maxPods). */
  pods?: number;
  labels?: Record<string, string>;
  taints?: Taint[];
  /** spec.unschedulable (cordoned). */
  unschedulable?: boolean;
  /** False: the kubelet posts Ready=False (the node is not Ready). */
  ready?: boolean;
}

/**
 * What a platform gets when it names no nodes: one node big enough for what the tests and the
 * local environment run at once (tens of crc VMs of 4 cores and 16Gi, hcp workers, Jobs).
 */
export const DEFAULT_NODES: readonly SimulatedNodeSpec[] = [
  { cpu: '512', memory: '2Ti', pods: 1000 },
];

/** Removes node.kubernetes.io/not-ready from a node's taints (pkg/controller/nodelifecycle). */
async function liftNotReadyTaint(client: ApiClient, name: string): Promise<void> {
  const node = await client.get<KubeObject & { spec?: { taints?: Taint[] } }>(NODES, name);
  const taints = node.spec?.taints ?? [];
  const kept = taints.filter((t) => t.key !== NOT_READY_TAINT.key);
  if (kept.length !== taints.length)
    await client.update(NODES, { ...node, spec: { ...node.spec, taints: kept } });
}

/**
 * A management-cluster Node with an InternalIP on loopback, as a kubelet registers it: labels,
 * taints, status.capacity and status.allocatable (cpu, memory, pods), and its Ready condition.
 * Every node is labelled worker and kubevirt.io/schedulable (virt-handler runs on it). Nodes are
 * cluster-wide: each platform registers its own and removes them when done.
 */
export class SimulatedManagementNode {
  private constructor(
    private readonly client: ApiClient,
    readonly name: string,
  ) {}

  static async start(
    client: ApiClient,
    name: string,
    spec: SimulatedNodeSpec,
    address = '127.0.0.1',
  ): Promise<SimulatedManagementNode> {
    const created = await client.create<KubeObject>(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'node-role.kubernetes.io/worker': '',
          [KUBEVIRT_SCHEDULABLE]: 'true',
          // What every kubelet labels its Node with (pkg/kubelet/kubelet_node_status.go,
          // initialNode): the simulated management cluster is an amd64 Linux one.
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'beta.kubernetes.io/arch': 'amd64',
          ...spec.labels,
        },
      },
      spec: {
        ...(spec.taints?.length ? { taints: spec.taints } : {}),
        ...(spec.unschedulable ? { unschedulable: true } : {}),
      },
    } as KubeObject);
    const resources = { cpu: spec.cpu, memory: spec.memory, pods: String(spec.pods ?? 110) };
    const ready = kubeletReadyCondition();
    await client.updateStatus(NODES, {
      ...created,
      status: {
        capacity: resources,
        allocatable: resources,
        conditions: [
          spec.ready === false
            ? { ...ready, status: 'False', reason: 'KubeletNotReady', message: 'simulated' }
            : ready,
        ],
        addresses: [
          { type: 'InternalIP', address },
          { type: 'Hostname', address: name },
        ],
      },
    } as KubeObject);
    // The API server's TaintNodesByCondition admission gave the new node the not-ready taint;
    // the node lifecycle controller, which does not run here, lifts it once the node is Ready.
    if (spec.ready !== false) await liftNotReadyTaint(client, name);
    return new SimulatedManagementNode(client, name);
  }

  async stop(): Promise<void> {
    try {
      await this.client.delete(NODES, this.name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
