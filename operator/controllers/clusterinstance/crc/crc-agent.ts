import {
  EVENTS,
  JOBS,
  LABEL_JOB_NAME,
  PODS,
  ROLE_BINDINGS,
  SERVICE_ACCOUNTS,
} from '../../../../client/api/core-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { Job, Pod, Secret } from '../../../kube/workloads.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { kubeconfigSecretName } from '../core/naming.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { AgentJobInputs, RbacObject } from './crc-agent-builders.js';
import { buildAgentJob } from './crc-agent-builders.js';
import type { AgentCondition, CoreEvent } from './crc-agent-diagnostics.js';
import { agentPrerequisiteProblem, diagnoseAgent, jobEnv } from './crc-agent-diagnostics.js';
import type { Handoff } from './crc-handoff.js';
import { handoffFrom } from './crc-handoff.js';
import { agentAccountName, agentJobName, handoffSecretName } from './crc-naming.js';
import { AGENT_ENV } from '../../../../contracts/agent-job.js';

/*
 * The crc-agent stage of a pass (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-agent-diagnostics): whether the agent is done with the current
 * VMI, its Job while it is not, and what a person needs to know about that Job.
 */

/** The agent is done with the VMI: its handoff, or the kubeconfig published from one. */
export type AgentDone = { handoff: Handoff } | { published: true };

/**
 * Whether the agent finished for VMI `vmiUid`: the kubeconfig published for it is there (the
 * VMI precondition removes it with its VMI), or the VMI's handoff is complete and the instance's
 * (docs/reference/instances.md#crc-provisioning). Undefined while it is not.
 */
export async function agentDone(
  objects: InstanceObjects,
  vmiUid: string,
): Promise<AgentDone | undefined> {
  const name = objects.instance.metadata.name;
  const published = objects.cached<Secret>(SECRETS, kubeconfigSecretName(name));
  if (published && objects.controls(published)) return { published: true };
  const secret = objects.cached<Secret>(SECRETS, handoffSecretName(name, vmiUid));
  const handoff = handoffFrom(secret, vmiUid);
  if (!secret || !handoff) return undefined;
  await objects.verify(SECRETS, secret);
  return { handoff };
}

/**
 * The agent Job of the VMI, created when missing; an existing Job of another owner is a conflict.
 */
export async function ensureAgentJob(
  objects: InstanceObjects,
  inputs: AgentJobInputs,
): Promise<{ job: Stored<Job>; created: boolean }> {
  const instance = objects.instance;
  const name = agentJobName(instance.metadata.name, inputs.vmiUid);
  const existing = await objects.current<Job>(JOBS, name);
  if (existing) {
    if (!objects.controls(existing))
      throw new OwnershipConflictError(
        `crc-agent Job ${objects.namespace}/${name} is not controlled by this ClusterInstance`,
      );
    return { job: existing, created: false };
  }
  const { object } = await objects.ensure(JOBS, buildAgentJob(instance, inputs));
  return { job: object, created: true };
}

/** The VMI's agent Job when there is one of the instance's (the agent may be done without it). */
export async function existingAgentJob(
  objects: InstanceObjects,
  vmiUid: string,
): Promise<Stored<Job> | undefined> {
  const job = await objects.current<Job>(
    JOBS,
    agentJobName(objects.instance.metadata.name, vmiUid),
  );
  return job && objects.controls(job) ? job : undefined;
}

/**
 * The CRCAgent condition (docs/reference/instances.md#crc-agent-diagnostics); a failed Job fails
 * the instance.
 */
export async function inspectAgent(
  api: InstanceApi,
  objects: InstanceObjects,
  job: Stored<Job>,
  seen: { handoffReceived: boolean; handoffGraceMs: number },
): Promise<AgentCondition> {
  const ns = objects.namespace;
  const jobName = job.metadata.name;
  const pods = api.cachedList<Pod>(
    PODS,
    (p) => p.metadata?.namespace === ns && p.metadata.labels?.[LABEL_JOB_NAME] === jobName,
  );
  const jobVmi = jobEnv(job, AGENT_ENV.vmiUid) ?? '';
  const received = seen.handoffReceived;
  const needsEvents = !received && pods.every((p) => p.status?.phase !== 'Running');
  const verdict = diagnoseAgent({
    job,
    pods,
    events: needsEvents ? await api.list<CoreEvent>(EVENTS, { namespace: ns }) : [],
    handoffReceived: received,
    jobHandoff: objects.cached<Secret>(
      SECRETS,
      handoffSecretName(objects.instance.metadata.name, jobVmi),
    ),
    prerequisiteProblem: received ? undefined : await prerequisites(api, objects, job),
    now: api.now(),
    handoffGraceMs: seen.handoffGraceMs,
  });
  if ('failed' in verdict)
    throw new InstanceFailure(Reason.AgentJobFailed, verdict.message, [
      {
        type: 'CRCAgent',
        status: 'False',
        reason: Reason.AgentJobFailed,
        message: verdict.message,
      },
    ]);
  return verdict;
}

async function prerequisites(
  api: InstanceApi,
  objects: InstanceObjects,
  job: Job,
): Promise<string | undefined> {
  const bindings = await api.list<RbacObject>(ROLE_BINDINGS, { namespace: objects.namespace });
  const secrets = new Map<string, Secret | undefined>();
  for (const volume of job.spec.template.spec.volumes ?? [])
    if (volume.secret)
      secrets.set(
        volume.secret.secretName,
        await objects.current<Secret>(SECRETS, volume.secret.secretName),
      );
  return agentPrerequisiteProblem(job, objects.instance, {
    serviceAccount: await objects.live(
      SERVICE_ACCOUNTS,
      agentAccountName(objects.instance.metadata.name),
    ),
    bindings,
    secrets: (name) => secrets.get(name),
  });
}
