import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { EVENTS, PODS } from '../../../client/api/core-resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import { resourceType } from '../../../client/kube/resource-type.js';
import { NODES } from '../../../operator/api/platform-resources.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { objectKey } from '../../../operator/kube/objects.js';
import { SimulatorHost } from '../host/simulator-host.js';
import { timestamp } from '../host/platform-kinds.js';
import type { NodeObject, SchedulingPod } from './scheduling-nodes.js';
import { isTerminal, schedulingNodes } from './scheduling-nodes.js';
import { schedulePod } from './schedule-pod.js';
import type { SchedulingPodSpec } from './node-filters.js';

/** POST …/namespaces/<ns>/bindings: what kube-scheduler's DefaultBinder does for a pod. */
const BINDINGS = resourceType('v1', 'Binding', 'bindings');
const SCHEDULER_NAME = 'default-scheduler';

export interface SimulatedSchedulerOptions {
  kubeConfig: ClusterAccess;
  /** Pods in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  /** The platform's nodes, by name: the only ones it schedules onto, and counts. */
  nodes: ReadonlySet<string>;
}

/**
 * kube-scheduler for one simulated platform (docs/adr/0044-the-simulated-platform-schedules.md):
 * every pending pod of a served namespace with no nodeName and the default scheduler is placed on
 * one of the platform's own nodes (schedulePod) and bound through the API, which sets
 * PodScheduled=True; a pod that fits nowhere stays Pending with PodScheduled=False, reason
 * Unschedulable and the scheduler's message, and a FailedScheduling Event. As the scheduling
 * queue does on cluster events (pkg/scheduler/backend/queue, MoveAllToActiveOrBackoffQueue),
 * unschedulable pods are tried again when one of the nodes changes or is added, or a pod on one of
 * them ends or goes. Pods are placed one at a time, and a pod just bound counts on its node before
 * the watch shows it (the cache's assumed pods).
 */
export class SimulatedScheduler {
  private readonly assumed = new Map<string, { node: string; spec: SchedulingPodSpec }>();
  private cycle: Promise<unknown> = Promise.resolve();
  private enqueueAll: () => void = () => undefined;

  private constructor(
    private readonly host: SimulatorHost,
    private readonly options: SimulatedSchedulerOptions,
  ) {}

  static async start(options: SimulatedSchedulerOptions): Promise<SimulatedScheduler> {
    const host = new SimulatorHost(options.kubeConfig, {
      retryBackoff: { baseMs: 50, maxMs: 2000, jitter: 0.1 },
    });
    const scheduler = new SimulatedScheduler(host, options);
    const pods = host.informer<SchedulingPod>(PODS);
    const pending = (): string[] => pods.list((pod) => scheduler.waiting(pod)).map(objectKey);
    const ours = (pod: KubeObject): boolean =>
      options.nodes.has((pod as SchedulingPod).spec?.nodeName ?? '');
    const controller = host.addController({
      name: 'simulated-scheduler',
      forType: PODS,
      watches: [
        { type: NODES, map: (node) => (options.nodes.has(node.metadata!.name!) ? pending() : []) },
        {
          // A pod that ends or goes frees its node's room (every pod event: a deletion too).
          type: PODS,
          map: (pod) =>
            ours(pod) && (isTerminal(pod as SchedulingPod) || pod.metadata?.deletionTimestamp)
              ? pending()
              : [],
        },
      ],
      reconcile: async (key) => {
        await scheduler.serialized(() => scheduler.scheduleOne(key));
      },
    });
    scheduler.enqueueAll = () => pending().forEach((key) => controller.enqueue(key));
    await host.start();
    return scheduler;
  }

  /** Tries every waiting pod again (a node was registered). */
  retryAll(): void {
    this.enqueueAll();
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }

  /** Whether the pod is one this scheduler should place. */
  private waiting(pod: SchedulingPod): boolean {
    return (
      !pod.spec?.nodeName &&
      !pod.metadata?.deletionTimestamp &&
      !isTerminal(pod) &&
      (pod.spec?.schedulerName ?? SCHEDULER_NAME) === SCHEDULER_NAME &&
      this.options.servesNamespace(pod.metadata!.namespace!)
    );
  }

  /** One cycle at a time: two pods never both take the last room on a node. */
  private serialized(run: () => Promise<void>): Promise<void> {
    const next = this.cycle.then(run);
    this.cycle = next.catch(() => undefined);
    return next;
  }

  private async scheduleOne(key: string): Promise<void> {
    const pod = this.host.informer<SchedulingPod>(PODS).get(key);
    if (!pod || !this.waiting(pod)) return;
    const placement = schedulePod(pod.spec, schedulingNodes(this.nodes(), this.boundPods()));
    if ('node' in placement) return this.bind(pod, placement.node);
    await this.unschedulable(pod, placement.unschedulable);
  }

  private nodes(): NodeObject[] {
    return this.host
      .informer<NodeObject>(NODES)
      .list((node) => this.options.nodes.has(node.metadata!.name!));
  }

  /** The pods on the platform's nodes: bound as the watch shows them, and those just bound. */
  private boundPods(): { node: string; spec: SchedulingPodSpec }[] {
    const seen = this.host
      .informer<SchedulingPod>(PODS)
      .list((pod) => this.options.nodes.has(pod.spec?.nodeName ?? '') && !isTerminal(pod));
    const uids = new Set(seen.map((pod) => pod.metadata!.uid!));
    for (const uid of this.assumed.keys()) if (uids.has(uid)) this.assumed.delete(uid);
    return [
      ...seen.map((pod) => ({ node: pod.spec.nodeName!, spec: pod.spec })),
      ...this.assumed.values(),
    ];
  }

  private async bind(pod: SchedulingPod, node: string): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    this.assumed.set(uid!, { node, spec: pod.spec });
    try {
      await this.host.client.create(BINDINGS, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace, uid },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      } as KubeObject);
    } catch (error) {
      this.assumed.delete(uid!);
      // Gone, replaced, or bound meanwhile: the pod's next event says what is left to do.
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  /** PodScheduled=False with the scheduler's words, once per message, and its Event. */
  private async unschedulable(pod: SchedulingPod, message: string): Promise<void> {
    const previous = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (previous?.status === 'False' && previous.message === message) return;
    const now = timestamp();
    try {
      await this.host.client.patch(
        PODS,
        { name: pod.metadata!.name!, namespace: pod.metadata!.namespace, subresource: 'status' },
        {
          metadata: { uid: pod.metadata!.uid },
          status: {
            phase: 'Pending',
            conditions: [
              {
                type: 'PodScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message,
                lastProbeTime: null,
                lastTransitionTime: now,
              },
            ],
          },
        },
      );
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
    await this.event(pod, message, now);
  }

  private async event(pod: SchedulingPod, message: string, now: string): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    await this.host.client
      .create(EVENTS, {
        metadata: { generateName: `${name}.`, namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid },
        type: 'Warning',
        reason: 'FailedScheduling',
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: SCHEDULER_NAME },
        reportingComponent: SCHEDULER_NAME,
      } as KubeObject)
      .catch(() => undefined);
  }
}
