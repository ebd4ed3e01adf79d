import type { Stored } from '../../../kube/objects.js';
import type { Job } from '../../../kube/workloads.js';
import type { StepFailure } from '../../../reconcile/step-errors.js';
import { failed, holds, waiting } from '../../../reconcile/verdict.js';
import { formatGoDuration } from '../../../../client/api/duration.js';
import { resolvePullSecret } from '../core/pull-secret.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { AgentCondition } from './crc-agent-diagnostics.js';
import { AgentReason } from './crc-agent-diagnostics.js';
import { agentDone, ensureAgentJob, existingAgentJob, inspectAgent } from './crc-agent.js';
import { bundleSshKey } from './crc-disk-source.js';
import { recordHostKey } from './crc-host-key.js';
import type { CrcHandOn, CrcPass, CrcStep } from './crc-pass.js';
import { announce } from './crc-pass.js';

/** What the agent step reads: the running VMI, the endpoint and what its Job is made with. */
type AgentInputs = Pick<CrcHandOn, 'vmiUid' | 'address' | 'endpoint' | 'pullSecret' | 'disk'>;

/**
 * The agent is done with the VMI (its handoff, or the kubeconfig published from one); while it is
 * not, its Job runs and the CRCAgent condition says how
 * (docs/reference/instances.md#crc-agent-diagnostics). A Ready instance whose published
 * kubeconfig is gone waits: the VMI precondition made sure it is the same guest.
 */
export function agentStep(pass: CrcPass): CrcStep<keyof AgentInputs, 'done' | 'agent'> {
  const { objects, draft, timings } = pass;
  const handoffGraceMs = timings.handoffGraceMs;
  return {
    name: 'crc-agent',
    conflict: Reason.APIEndpointConflict,
    run: async (inputs) => {
      const { vmiUid } = inputs;
      const done = await agentDone(objects, vmiUid);
      if (done) {
        const job = await existingAgentJob(objects, vmiUid);
        recordHostKey(objects, draft, vmiUid);
        const seen = { handoffReceived: true, handoffGraceMs };
        const agent = job && (await inspectAgent(pass.api, objects, job, seen));
        return holds({ done, agent });
      }
      if (draft.wasReady)
        return waiting({
          reason: Reason.KubeconfigUnavailable,
          message: 'published CRC kubeconfig is missing',
          requeueAfterMs: timings.recheckMs,
        });
      const job = await startAgent(pass, inputs);
      recordHostKey(objects, draft, vmiUid);
      const agent = await inspectAgent(pass.api, objects, job, {
        handoffReceived: false,
        handoffGraceMs,
      });
      const notStarted = agentStartDeadline(pass, job, agent);
      if (notStarted && 'fail' in notStarted) return notStarted;
      return waiting({
        reason: agent.reason,
        message: agent.message,
        agent,
        requeueAfterMs: agent.reason === 'HandoffPending' ? handoffGraceMs : notStarted?.afterMs,
      });
    },
  };
}

/** The VMI's agent Job, created (with an Event) when it has none. */
async function startAgent(pass: CrcPass, inputs: AgentInputs): Promise<Stored<Job>> {
  const { objects } = pass;
  const { vmiUid } = inputs;
  const ensured = await ensureAgentJob(objects, {
    image: pass.api.settings.crcAgentImage,
    vmiUid,
    vmiAddress: inputs.address,
    hostname: inputs.endpoint.hostname,
    pullSecretName: inputs.pullSecret ?? (await resolvePullSecret(objects)),
    sshKey: inputs.disk.sshKey ?? (await bundleSshKey(objects)),
  });
  const job = ensured.job;
  if (ensured.created)
    announce(
      pass,
      'AgentJobStarted',
      `Started crc-agent Job ${objects.namespace}/${job.metadata.name} for VMI ${vmiUid}`,
    );
  return job;
}

/** The agent conditions of a Job whose pod has not started running. */
const NOT_STARTED: readonly string[] = [
  AgentReason.AgentPodPending,
  AgentReason.AgentPodBlocked,
  AgentReason.AgentPodCreationFailed,
];

/**
 * A Job whose pod has not started (docs/reference/instances.md#provisioning-deadline): past
 * instance.agentStartDeadline from the Job's creation it fails the instance with
 * AgentJobNotStarted and the pod's own words; before, how long is left. Undefined for a Job whose
 * pod runs or ran.
 */
function agentStartDeadline(
  pass: CrcPass,
  job: Stored<Job>,
  agent: AgentCondition,
): { fail: StepFailure } | { afterMs: number } | undefined {
  if (!NOT_STARTED.includes(agent.reason)) return undefined;
  const deadlineMs = pass.timings.agentStartDeadlineMs;
  const left = Date.parse(job.metadata.creationTimestamp ?? '') + deadlineMs - pass.api.now();
  if (Number.isNaN(left)) return undefined;
  if (left > 0) return { afterMs: left };
  return failed(
    new InstanceFailure(
      Reason.AgentJobNotStarted,
      `crc-agent Job ${job.metadata.namespace}/${job.metadata.name} did not start within ${formatGoDuration(deadlineMs)} (instance.agentStartDeadline): ${agent.reason}: ${agent.message}`,
      [{ type: 'CRCAgent', ...agent }],
    ),
  );
}
