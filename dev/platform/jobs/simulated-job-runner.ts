import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AdminAccess } from '../../support/admin-access.js';
import { JOBS, PODS } from '../../../client/api/core-resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import { objectKey } from '../../../operator/kube/objects.js';
import type { Informer } from '../../../operator/runtime/informer.js';
import type { Job, JobCondition, Pod } from '../../../operator/kube/workloads.js';
import { projectRoot } from '../../control-plane/project-root.js';
import type { ContainerResult, LocalImage } from './local-pod.js';
import { runLocalPod } from './local-pod.js';
import { startPlatformInformer } from '../host/platform-informer.js';
import type { SimulatedStorage } from '../storage/simulated-storage.js';
import { activeDeadline, DEADLINE_EXCEEDED } from './job-deadline.js';

/** The crc-agent image runs as the built agent: `node dist/crc-agent/main.js <container args>`. */
export function crcAgentImage(image: string): Record<string, LocalImage> {
  return {
    [image]: {
      command: process.execPath,
      args: [path.join(projectRoot(), 'dist/crc-agent/main.js')],
    },
  };
}

export interface SimulatedJobRunnerOptions {
  /** Admin access: the runner acts as the Job controller and the kubelet. */
  kubeConfig: AdminAccess;
  /** The namespace whose Jobs this runner runs. */
  namespace: string;
  storage: SimulatedStorage;
  /** Which program each image stands for. A pod of another image stays Pending (ImagePullBackOff). */
  images: Record<string, LocalImage>;
  /** Which Jobs to run (all in the namespace by default). */
  accept?: (job: Job) => boolean;
  /** Told about every problem the simulation meets, besides `problems` (a log). */
  onProblem?: (problem: string) => void;
  /** Failure injection: a pod for which this returns a result ends with it instead of running. */
  inject?: (
    job: Job,
    pod: Pod,
  ) => ContainerResult | undefined | Promise<ContainerResult | undefined>;
  /**
   * Environment the platform adds to a pod's container besides its own variables (which win):
   * for example the SSH port of a simulated guest, which a real VM would have at port 22.
   */
  env?: (job: Job, pod: Pod, env: Readonly<Record<string, string>>) => Record<string, string>;
  /**
   * The nodes this runner is the kubelet of, when a scheduler places the pods
   * (dev/platform/scheduling/): pods are made without a node, and run once bound to one of these.
   * Without it, a runner on its own puts every pod on its one node at once.
   */
  nodes?: ReadonlySet<string>;
}

interface JobRun {
  abort: AbortController;
  done: Promise<void>;
}

const NODE_NAME = 'simulated-node';
const timestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const podSuffix = (): string =>
  Array.from(randomBytes(5), (byte) => 'bcdfghjklmnpqrstvwxz2456789'[byte % 27]).join('');

/**
 * Plays the Job controller and the kubelet for Jobs of one namespace: a new Job gets a pod (labels
 * and controller reference as the Job controller sets them), the pod's container runs as a local
 * process (see runLocalPod), and the Job's status follows: active, then succeeded or failed counts;
 * a failed pod is replaced until backoffLimit is exceeded; Complete (after SuccessCriteriaMet) or
 * Failed (after FailureTarget) at the end. activeDeadlineSeconds is kept from status.startTime: once
 * it passes, the active pod is deleted and the Job fails with DeadlineExceeded (job-deadline.ts).
 * Deleting the Job, or its pod, kills its process. Parallelism is not simulated.
 */
export class SimulatedJobRunner {
  private readonly runs = new Map<string, JobRun>();
  /** The running pods' kill switches, by pod uid. */
  private readonly running = new Map<string, AbortController>();
  /** The pods waiting for their binding, by pod uid: called on each of their events. */
  private readonly unbound = new Map<string, (pod: Pod | undefined) => void>();
  private informer!: Informer<Job>;
  private pods!: Informer<Pod>;
  private client!: ApiClient;
  private stopped = false;
  /** Problems the simulation met (a pod that could not start, …), for test diagnostics. */
  readonly problems: string[] = [];

  private constructor(
    private readonly options: SimulatedJobRunnerOptions,
    private readonly root: string,
  ) {}

  static async start(options: SimulatedJobRunnerOptions): Promise<SimulatedJobRunner> {
    const runner = new SimulatedJobRunner(
      options,
      await mkdtemp(path.join(os.tmpdir(), 'simulated-jobs-')),
    );
    await startPlatformInformer<Job>(
      options.kubeConfig,
      JOBS,
      options.namespace,
      {
        onAdd: (job) => runner.consider(job),
        onUpdate: (_previous, job) => runner.consider(job),
        onDelete: (job) => runner.runs.get(job.metadata!.uid!)?.abort.abort(),
      },
      (created) => ((runner.informer = created.informer), (runner.client = created.client)),
    );
    runner.pods = (
      await startPlatformInformer<Pod>(options.kubeConfig, PODS, options.namespace, {
        onAdd: (pod) => runner.podChanged(pod),
        onUpdate: (_previous, pod) => runner.podChanged(pod),
        onDelete: (pod) => runner.unbound.get(pod.metadata!.uid!)?.(undefined),
      })
    ).informer;
    return runner;
  }

  /** Where the pods of a Job kept their files (container.log, termination-log), by pod name. */
  podDir(podName: string): string {
    return path.join(this.root, podName);
  }

  /** Resolves once the runner is done with the Job (finished, or killed after its deletion). */
  async settled(job: Job): Promise<void> {
    await this.runs.get(job.metadata!.uid!)?.done;
  }

  /**
   * Kills every running process and stops watching. Like a node's graceful shutdown, the pods it
   * ran that have not finished are marked Failed, so that deleting them (or their namespace) works.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const run of this.runs.values()) run.abort.abort();
    await Promise.all([...this.runs.values()].map((run) => run.done));
    const unfinished = this.pods.list(
      (pod) => this.onNode(pod) && !['Succeeded', 'Failed'].includes(pod.status?.phase ?? ''),
    );
    await Promise.all(
      unfinished.map((pod) =>
        this.client
          .patch(
            PODS,
            {
              name: pod.metadata!.name!,
              namespace: pod.metadata!.namespace,
              subresource: 'status',
            },
            {
              status: {
                phase: 'Failed',
                reason: 'NodeShutdown',
                message: 'the simulated node stopped',
              },
            },
          )
          .catch(() => undefined),
      ),
    );
    await this.informer.stop();
    await this.pods.stop();
    await this.client.close();
    await rm(this.root, { recursive: true, force: true });
  }

  private problem(text: string): void {
    this.problems.push(text);
    this.options.onProblem?.(text);
  }

  /** Whether the pod is bound to a node this runner is the kubelet of. */
  private onNode(pod: Pod): boolean {
    const node = pod.spec.nodeName ?? '';
    return this.options.nodes ? this.options.nodes.has(node) : node === NODE_NAME;
  }

  /** The kubelet's part in a pod's deletion: stop its container, then remove it for good. */
  private podChanged(pod: Pod): void {
    this.unbound.get(pod.metadata!.uid!)?.(pod);
    if (!pod.metadata?.deletionTimestamp || !this.onNode(pod)) return;
    const running = this.running.get(pod.metadata.uid!);
    if (running) running.abort();
    else void this.removePod(pod);
  }

  private async removePod(pod: Pod): Promise<void> {
    try {
      await this.client.delete(PODS, pod.metadata!.name!, pod.metadata!.namespace, {
        uid: pod.metadata!.uid,
        gracePeriodSeconds: 0,
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error))
        this.problem(`Pod ${objectKey(pod)}: ${String(error)}`);
    }
  }

  private consider(job: Job): void {
    const uid = job.metadata!.uid!;
    if (this.stopped || this.runs.has(uid) || job.metadata?.deletionTimestamp) return;
    if (finished(job) || !(this.options.accept?.(job) ?? true)) return;
    const abort = new AbortController();
    const done = this.runJob(job, abort.signal).catch((error: unknown) => {
      if (!abort.signal.aborted) this.problem(`Job ${objectKey(job)}: ${String(error)}`);
    });
    this.runs.set(uid, { abort, done });
  }

  /**
   * Pods one after another until one succeeds, the failures exceed backoffLimit, or the Job's
   * deadline passes (see job-deadline.ts: the pod running then is deleted, and no other is made).
   */
  private async runJob(job: Job, signal: AbortSignal): Promise<void> {
    const limit = job.spec.backoffLimit ?? 6;
    let failed = job.status?.failed ?? 0;
    const startTime = job.status?.startTime ?? timestamp();
    const deadline = activeDeadline(job, startTime);
    while (!signal.aborted) {
      if (deadline.aborted) return this.failJob(job, { startTime, failed }, DEADLINE_EXCEEDED);
      const pod = await this.createPod(job);
      await this.patchJobStatus(job, { startTime, active: 1, failed, succeeded: 0 });
      let expiring: Promise<void> | undefined;
      const expire = (): void => void (expiring ??= this.expire(job, pod, { startTime, failed }));
      deadline.addEventListener('abort', expire, { once: true });
      if (deadline.aborted) expire();
      const result = await this.runPod(job, pod, signal).finally(() =>
        deadline.removeEventListener('abort', expire),
      );
      if (signal.aborted) return;
      if (expiring) {
        await expiring;
        return this.failJob(job, { startTime, failed: failed + 1 }, DEADLINE_EXCEEDED);
      }
      if (result.exitCode === 0) {
        const now = timestamp();
        await this.patchJobStatus(job, {
          startTime,
          active: 0,
          ready: 0,
          failed,
          succeeded: 1,
          completionTime: now,
          conditions: [
            condition(
              'SuccessCriteriaMet',
              'CompletionsReached',
              'Reached expected number of succeeded pods',
              now,
            ),
            condition(
              'Complete',
              'CompletionsReached',
              'Reached expected number of succeeded pods',
              now,
            ),
          ],
        });
        return;
      }
      failed += 1;
      if (failed > limit) return this.failJob(job, { startTime, failed }, BACKOFF_LIMIT_EXCEEDED);
    }
  }

  /**
   * The deadline passed with a pod active: the pod is deleted (the kubelet part kills its
   * container), and the Job gets FailureTarget while the pod terminates.
   */
  private async expire(job: Job, pod: Pod, counts: { startTime: string; failed: number }) {
    try {
      await this.client.delete(PODS, pod.metadata!.name!, pod.metadata!.namespace, {
        uid: pod.metadata!.uid,
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error))
        this.problem(`Pod ${objectKey(pod)}: ${String(error)}`);
    }
    const now = timestamp();
    await this.patchJobStatus(job, {
      ...counts,
      active: 0,
      ready: 0,
      terminating: 1,
      succeeded: 0,
      conditions: [
        condition('FailureTarget', DEADLINE_EXCEEDED.reason, DEADLINE_EXCEEDED.message, now),
      ],
    }).catch((error: unknown) => this.problem(`Job ${objectKey(job)}: ${String(error)}`));
  }

  /** Failed for good, no pod active or terminating: FailureTarget, then Failed. */
  private async failJob(
    job: Job,
    counts: { startTime: string; failed: number },
    why: { reason: string; message: string },
  ): Promise<void> {
    const now = timestamp();
    await this.patchJobStatus(job, {
      ...counts,
      active: 0,
      ready: 0,
      terminating: 0,
      succeeded: 0,
      conditions: [
        condition('FailureTarget', why.reason, why.message, now),
        condition('Failed', why.reason, why.message, now),
      ],
    });
  }

  /** Runs the pod until it ends, or until its Job or the pod itself is deleted. */
  private async runPod(job: Job, pod: Pod, jobSignal: AbortSignal): Promise<ContainerResult> {
    const kill = new AbortController();
    const signal = AbortSignal.any([jobSignal, kill.signal]);
    this.running.set(pod.metadata!.uid!, kill);
    try {
      return await this.runContainer(job, pod, signal);
    } finally {
      this.running.delete(pod.metadata!.uid!);
      const current = this.pods.get(objectKey(pod));
      if (current?.metadata?.deletionTimestamp) await this.removePod(pod);
    }
  }

  private async runContainer(job: Job, pod: Pod, signal: AbortSignal): Promise<ContainerResult> {
    // A kubelet sees a pod once it is bound to its node; one that fits no node never runs.
    if (!(await this.boundToNode(pod, signal))) return KILLED;
    const dir = this.podDir(pod.metadata!.name!);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // A kubelet starts no container, played or run, before the pod's claims are bound: a played
    // step reads and writes its volumes as the real one does.
    if (this.options.inject && !(await this.claimsBound(pod, signal))) return KILLED;
    // A played result may be held (a test holding a step): deleting the pod ends it all the same.
    const injected = await Promise.race([
      Promise.resolve(this.options.inject?.(job, pod)),
      aborted(signal),
    ]);
    if (injected === KILLED) return injected;
    if (injected) {
      await this.client.patch(
        PODS,
        { name: pod.metadata!.name!, namespace: pod.metadata!.namespace, subresource: 'status' },
        {
          status: {
            phase: injected.exitCode === 0 ? 'Succeeded' : 'Failed',
            containerStatuses: [
              {
                name: pod.spec.containers[0]!.name,
                image: pod.spec.containers[0]!.image,
                imageID: `local://${pod.spec.containers[0]!.image}`,
                ready: false,
                restartCount: 0,
                state: { terminated: { ...injected, finishedAt: timestamp() } },
              },
            ],
          },
        },
      );
      return injected;
    }
    const image = pod.spec.containers[0]!.image;
    if (!this.options.images[image]) return this.pullBackOff(pod, image, signal);
    return runLocalPod(pod, {
      client: this.client,
      kubeConfig: this.options.kubeConfig,
      storage: this.options.storage,
      images: this.options.images,
      dir,
      signal,
      platformEnv: this.options.env && ((env) => this.options.env!(job, pod, env)),
    });
  }

  /**
   * An image no registry here has: the pod stays Pending in ImagePullBackOff until it is deleted,
   * as the kubelet keeps retrying a pull that fails (pkg/kubelet/images/image_manager.go).
   */
  private async pullBackOff(
    pod: Pod,
    image: string,
    signal: AbortSignal,
  ): Promise<ContainerResult> {
    const container = pod.spec.containers[0]!;
    await this.client.patch(
      PODS,
      { name: pod.metadata!.name!, namespace: pod.metadata!.namespace, subresource: 'status' },
      {
        status: {
          phase: 'Pending',
          containerStatuses: [
            {
              name: container.name,
              image,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: {
                waiting: {
                  reason: 'ImagePullBackOff',
                  message: `Back-off pulling image "${image}"`,
                },
              },
            },
          ],
        },
      },
    );
    return aborted(signal);
  }

  /**
   * Resolves true once the scheduler has bound the pod to one of the runner's nodes; false when
   * the pod goes, is bound elsewhere, or its Job (or its deadline) ends the wait first.
   */
  private boundToNode(pod: Pod, signal: AbortSignal): Promise<boolean> {
    const uid = pod.metadata!.uid!;
    return new Promise((resolve) => {
      const settle = (result: boolean): void => {
        this.unbound.delete(uid);
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const check = (current: Pod | undefined): void => {
        if (!current || current.metadata?.deletionTimestamp) settle(false);
        else if (current.spec.nodeName) settle(this.onNode(current));
      };
      const onAbort = (): void => settle(false);
      if (signal.aborted) return settle(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.unbound.set(uid, check);
      check(this.pods.get(objectKey(pod)) ?? pod);
    });
  }

  /** Whether every claim of the pod is bound; false when the pod or its Job went first. */
  private async claimsBound(pod: Pod, signal: AbortSignal): Promise<boolean> {
    const namespace = pod.metadata!.namespace!;
    try {
      for (const volume of pod.spec.volumes ?? []) {
        const claim = volume.persistentVolumeClaim?.claimName;
        if (claim) await this.options.storage.whenBound(namespace, claim, signal);
      }
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      throw error;
    }
  }

  /**
   * The pod as the Job controller makes it: for the scheduler to place, or (a runner on its own)
   * on the runner's node at once.
   */
  private async createPod(job: Job): Promise<Pod> {
    const name = job.metadata!.name!;
    const template = job.spec.template;
    return this.client.create<Pod>(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-${podSuffix()}`,
        namespace: job.metadata!.namespace,
        labels: {
          ...template.metadata?.labels,
          'batch.kubernetes.io/job-name': name,
          'job-name': name,
          'batch.kubernetes.io/controller-uid': job.metadata!.uid!,
          'controller-uid': job.metadata!.uid!,
        },
        ownerReferences: [
          {
            apiVersion: JOBS.apiVersion,
            kind: JOBS.kind,
            name,
            uid: job.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { ...template.spec, ...(this.options.nodes ? {} : { nodeName: NODE_NAME }) },
    });
  }

  private async patchJobStatus(job: Job, status: NonNullable<Job['status']>): Promise<void> {
    try {
      await this.client.patch(
        JOBS,
        { name: job.metadata!.name!, namespace: job.metadata!.namespace, subresource: 'status' },
        { metadata: { uid: job.metadata!.uid }, status },
      );
    } catch (error) {
      // Gone, or replaced by a new Job of the same name (the uid no longer matches).
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }
}

const BACKOFF_LIMIT_EXCEEDED = {
  reason: 'BackoffLimitExceeded',
  message: 'Job has reached the specified backoff limit',
};
/** How a container killed by its pod's deletion ends (SIGKILL). */
const KILLED: ContainerResult = { exitCode: 137, reason: 'Killed', message: '' };
const aborted = (signal: AbortSignal): Promise<ContainerResult> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(KILLED);
    else signal.addEventListener('abort', () => resolve(KILLED), { once: true });
  });

function finished(job: Job): boolean {
  return (
    job.status?.conditions?.some(
      (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
    ) ?? false
  );
}

function condition(type: string, reason: string, message: string, now: string): JobCondition {
  return { type, status: 'True', reason, message, lastProbeTime: now, lastTransitionTime: now };
}
