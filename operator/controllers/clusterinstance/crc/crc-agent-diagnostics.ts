import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { ContainerStatus, Job, Pod, Secret } from '../../../kube/workloads.js';
import type { Instance } from '../core/instance-api.js';
import type { RbacObject } from './crc-agent-builders.js';
import { agentAccountName, handoffSecretName } from './crc-naming.js';
import { AGENT_ENV } from '../../../../contracts/agent-job.js';
import { isControlledBy } from '../../../kube/ownership.js';

/*
 * The CRCAgent condition (docs/reference/instances.md#crc-agent-diagnostics): what a person needs
 * to know about the agent Job, from the Job, its pods, the namespace's Events and the handoff.
 * Pure: the caller reads the objects. Messages name objects and reasons only, never Secret data.
 */

export const AgentReason = {
  HandoffReceived: 'HandoffReceived',
  HandoffPending: 'HandoffPending',
  HandoffInvalid: 'HandoffInvalid',
  AgentRetrying: 'AgentRetrying',
  AgentPodPending: 'AgentPodPending',
  AgentWorking: 'AgentWorking',
  AgentPrerequisiteMissing: 'AgentPrerequisiteMissing',
  AgentPodBlocked: 'AgentPodBlocked',
  AgentPodCreationFailed: 'AgentPodCreationFailed',
  AgentJobFailed: 'AgentJobFailed',
} as const;

export interface AgentCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The Job failed for good: the instance is marked Failed with AgentJobFailed. */
export interface AgentJobFailure {
  failed: true;
  message: string;
}

export interface CoreEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
}

export interface AgentObservation {
  job: Stored<Job>;
  pods: Stored<Pod>[];
  events: CoreEvent[];
  /** A valid handoff for the VMI the instance observes now. */
  handoffReceived: boolean;
  /** The handoff Secret of the VMI named in the Job's CRC_VMI_UID (for a completed Job). */
  jobHandoff: Secret | undefined;
  /** Why the agent cannot run (see agentPrerequisiteProblem), if it cannot. */
  prerequisiteProblem: string | undefined;
  now: number;
  /**
   * After the Job completes, the handoff may take this long to reach the cache
   * (docs/reference/naming.md#defaults-and-intervals).
   */
  handoffGraceMs: number;
}

const BLOCKING_WAIT_REASONS = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);
const BLOCKING_POD_EVENTS = new Set([
  'FailedMount',
  'FailedScheduling',
  'Failed',
  'FailedCreatePodSandBox',
]);

function jobCondition(job: Job, type: string): { status: string; reason?: string; at?: string } {
  const condition = job.status?.conditions?.find((c) => c.type === type);
  return {
    status: condition?.status ?? 'Unknown',
    reason: condition?.reason,
    at: condition?.lastTransitionTime,
  };
}

export function jobEnv(job: Job, name: string): string | undefined {
  return job.spec.template.spec.containers[0]?.env?.find((e) => e.name === name)?.value;
}

/** A blocked container's reason (init or normal), or undefined. */
function blockedContainer(pod: Pod): string | undefined {
  const status: (Pod['status'] & { initContainerStatuses?: ContainerStatus[] }) | undefined =
    pod.status;
  return [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])]
    .map((c) => c.state?.waiting?.reason)
    .find((reason) => !!reason && BLOCKING_WAIT_REASONS.has(reason));
}

/** Evaluates the agent Job, in the order of docs/reference/instances.md#crc-agent-diagnostics. */
export function diagnoseAgent(seen: AgentObservation): AgentCondition | AgentJobFailure {
  const { job } = seen;
  const ns = job.metadata.namespace;
  const name = job.metadata.name;
  const say = (detail: string): string =>
    `crc-agent Job ${ns}/${name}: ${detail}; inspect with kubectl -n ${ns} describe job ${name}`;
  const condition = (
    status: AgentCondition['status'],
    reason: string,
    detail: string,
  ): AgentCondition => ({ status, reason, message: say(detail) });

  const failed = jobCondition(job, 'Failed');
  if (failed.status === 'True') return jobFailure(seen, failed.reason, say);
  if (seen.handoffReceived)
    return condition('True', AgentReason.HandoffReceived, 'valid VMI handoff received');
  const complete = jobCondition(job, 'Complete');
  if ((job.status?.succeeded ?? 0) > 0 || complete.status === 'True')
    return completedWithoutHandoff(seen, complete.at, condition);
  if (seen.prerequisiteProblem)
    return condition('False', AgentReason.AgentPrerequisiteMissing, seen.prerequisiteProblem);
  const fromPods = podVerdict(seen.pods, condition);
  if (fromPods) return fromPods;
  if (seen.pods.some((pod) => pod.status?.phase === 'Failed'))
    return condition('Unknown', AgentReason.AgentRetrying, 'a Pod failed; the Job retries');
  const fromEvents = eventVerdict(seen, condition);
  if (fromEvents) return fromEvents;
  return seen.pods.length === 0
    ? condition('Unknown', AgentReason.AgentPodPending, 'waiting for the Job to create a Pod')
    : condition('Unknown', AgentReason.AgentWorking, 'crc-agent is working');
}

function jobFailure(
  seen: AgentObservation,
  reason: string | undefined,
  say: (detail: string) => string,
): AgentJobFailure {
  const pod = seen.pods[seen.pods.length - 1]?.metadata?.name;
  const inspect = pod ? ` Pod ${pod}` : '';
  return {
    failed: true,
    message: say(
      `Job failed (${reason ?? 'unknown reason'}); inspect${inspect} events and crc-agent logs`,
    ),
  };
}

/** A pod that cannot run (docs/reference/instances.md#crc-agent-diagnostics). */
function podVerdict(pods: Stored<Pod>[], condition: Say): AgentCondition | undefined {
  for (const pod of pods) {
    const blocked = blockedContainer(pod);
    if (blocked)
      return condition(
        'False',
        AgentReason.AgentPodBlocked,
        `Pod ${pod.metadata.name} is waiting (${blocked})`,
      );
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (pod.status?.phase === 'Pending' && scheduled?.status === 'False')
      return condition(
        'False',
        AgentReason.AgentPodBlocked,
        `Pod ${pod.metadata.name} cannot be scheduled`,
      );
  }
  return undefined;
}

type Say = (status: AgentCondition['status'], reason: string, detail: string) => AgentCondition;

function completedWithoutHandoff(
  seen: AgentObservation,
  conditionTime: string | undefined,
  condition: Say,
): AgentCondition {
  const finished = Date.parse(seen.job.status?.completionTime ?? conditionTime ?? '');
  if (Number.isNaN(finished) || seen.now - finished < seen.handoffGraceMs)
    return condition(
      'Unknown',
      AgentReason.HandoffPending,
      'Job completed; waiting for the handoff Secret to reach the cache',
    );
  const vmiUid = jobEnv(seen.job, AGENT_ENV.vmiUid) ?? '';
  const secret = `Secret ${seen.job.metadata.namespace}/${handoffSecretName(jobEnv(seen.job, AGENT_ENV.instanceName) ?? '', vmiUid)}`;
  const data = seen.jobHandoff?.data ?? {};
  if (!seen.jobHandoff)
    return condition(
      'False',
      AgentReason.HandoffInvalid,
      `handoff ${secret} is missing; inspect crc-agent logs`,
    );
  if (!data.kubeconfig)
    return condition('False', AgentReason.HandoffInvalid, `handoff ${secret} has no kubeconfig`);
  return condition(
    'False',
    AgentReason.HandoffInvalid,
    `handoff ${secret} has a mismatched VMI UID (want ${vmiUid})`,
  );
}

function eventVerdict(seen: AgentObservation, condition: Say): AgentCondition | undefined {
  const jobName = seen.job.metadata.name;
  if (seen.pods.length === 0) {
    const failedCreate = seen.events.find(
      (e) =>
        e.involvedObject?.kind === 'Job' &&
        e.involvedObject.name === jobName &&
        e.reason === 'FailedCreate',
    );
    if (failedCreate)
      return condition(
        'False',
        AgentReason.AgentPodCreationFailed,
        `the Job cannot create its Pod (FailedCreate)`,
      );
    return undefined;
  }
  const pending = new Set(
    seen.pods.filter((p) => p.status?.phase === 'Pending').map((p) => p.metadata.name),
  );
  const blocking = seen.events.find(
    (e) =>
      e.involvedObject?.kind === 'Pod' &&
      pending.has(e.involvedObject.name ?? '') &&
      BLOCKING_POD_EVENTS.has(e.reason ?? ''),
  );
  return blocking
    ? condition(
        'False',
        AgentReason.AgentPodBlocked,
        `Pod ${blocking.involvedObject!.name} is blocked (${blocking.reason})`,
      )
    : undefined;
}

export interface AgentPrerequisites {
  serviceAccount: KubeObject | undefined;
  bindings: RbacObject[];
  /** Secrets by name, for the Job's Secret volumes. */
  secrets: (name: string) => Secret | undefined;
}

/**
 * Why the Job's pod cannot run as configured (docs/reference/instances.md#crc-agent-diagnostics),
 * or undefined.
 */
export function agentPrerequisiteProblem(
  job: Job,
  instance: Instance,
  found: AgentPrerequisites,
): string | undefined {
  const account = agentAccountName(instance.metadata.name);
  const used = job.spec.template.spec.serviceAccountName || 'default';
  if (used !== account) return `Job uses unexpected ServiceAccount ${used}`;
  if (!found.serviceAccount) return `ServiceAccount ${account} is missing`;
  const bound = found.bindings.some(
    (binding) =>
      isControlledBy(binding, instance) &&
      binding.subjects?.some(
        (s) =>
          s.kind === 'ServiceAccount' &&
          s.name === account &&
          s.namespace === instance.metadata.namespace,
      ),
  );
  if (!bound) return `no RoleBinding of this ClusterInstance binds ServiceAccount ${account}`;
  for (const volume of job.spec.template.spec.volumes ?? []) {
    if (!volume.secret) continue;
    const secret = found.secrets(volume.secret.secretName);
    if (!secret) return `Secret ${volume.secret.secretName} is missing`;
    const missing = (volume.secret.items ?? []).find((item) => !secret.data?.[item.key]);
    if (missing)
      return `Secret ${volume.secret.secretName} has no data key ${JSON.stringify(missing.key)}`;
  }
  return undefined;
}
