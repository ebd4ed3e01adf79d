import { findCondition } from '../../../api/conditions.js';
import { formatGoDuration, parseGoDuration } from '../../../../client/api/duration.js';
import { metaTime } from '../../../../client/kube/meta-time.js';
import type { ReconcileResult } from '../../../runtime/controller.js';
import { sooner } from '../../../runtime/controller.js';
import { PLATFORM_GATE_CONDITIONS } from '../platform-readiness.js';
import type { Instance } from './instance-api.js';
import { resumeUnderWay } from './hibernation.js';
import { InstanceFailure, Reason } from './reasons.js';
import type { InstanceStatusDraft } from './status-draft.js';

type ClusterType = Instance['spec']['type'];

/**
 * How long provisioning may take when spec.provisioningTimeout says nothing
 * (docs/reference/instances.md#provisioning-deadline): about three times what a healthy guest
 * takes (crc boots from a cloned disk in minutes, a hosted cluster with KubeVirt workers in about
 * fifteen).
 */
export const DEFAULT_PROVISIONING_TIMEOUT_MS: Record<ClusterType, number> = {
  crc: 30 * 60_000,
  hcp: 45 * 60_000,
};

export interface ProvisioningDeadline {
  /** When provisioning times out. */
  at: number;
  timeoutMs: number;
  /** Where the timeout comes from, as a person would look it up. */
  setting: string;
}

/**
 * The deadline of an instance that provisions for the first time, or resumes from hibernation: its
 * timeout counted from when provisioning (the resume) started or the platform last became ready,
 * whichever is later (a platform that was down did not let it try). None once it was Ready
 * (status.firstReadyAt; status.topology for instances Ready before that field existed) and not
 * resuming, or before provisioning started.
 */
export function provisioningDeadline(draft: InstanceStatusDraft): ProvisioningDeadline | undefined {
  const { instance, status } = draft;
  // A resume has the same time as a provisioning, from its start (docs/reference/instances.md#hibernation).
  const resume = resumeUnderWay(status);
  if (resume === undefined && (status.firstReadyAt || status.topology)) return undefined;
  const started = resume ?? Date.parse(status.provisioning?.startedAt ?? '');
  if (Number.isNaN(started)) return undefined;
  const given = instance.spec.provisioningTimeout;
  const parsed = given ? parseGoDuration(given) : undefined;
  const timeoutMs = parsed || DEFAULT_PROVISIONING_TIMEOUT_MS[instance.spec.type];
  const platformReadySince = PLATFORM_GATE_CONDITIONS.map((type) => {
    const condition = findCondition(status.conditions, type);
    return condition?.status === 'True' ? Date.parse(condition.lastTransitionTime ?? '') : NaN;
  }).filter((at) => !Number.isNaN(at));
  return {
    at: Math.max(started, ...platformReadySince) + timeoutMs,
    timeoutMs,
    setting: parsed ? 'spec.provisioningTimeout' : `the ${instance.spec.type} default`,
  };
}

/**
 * The deadline applied to a pass that ends with the instance still provisioning: recorded in
 * status.provisioningDeadline and looked at again when it comes; once it has passed, the instance
 * fails with ProvisioningTimedOut, naming what it waited for in the words of the wait (which carry
 * the platform's own message), and its pool replaces it. A condition of that type keeps the wait's
 * reason (metrics count timeouts by it) and message.
 */
export function applyProvisioningDeadline(
  draft: InstanceStatusDraft,
  result: ReconcileResult,
  now: number,
): ReconcileResult {
  const deadline = draft.status.phase === 'Provisioning' ? provisioningDeadline(draft) : undefined;
  if (!deadline || now < deadline.at) draft.removeCondition(Reason.ProvisioningTimedOut);
  if (!deadline) {
    delete draft.status.provisioningDeadline;
    return result;
  }
  draft.status.provisioningDeadline = metaTime(deadline.at);
  if (now < deadline.at) return sooner(result, { requeueAt: deadline.at });
  const ready = findCondition(draft.status.conditions, 'Ready');
  const wait = {
    reason: ready?.status === 'False' ? ready.reason : 'Unknown',
    message: ready?.status === 'False' ? ready.message : 'the instance did not say',
  };
  throw new InstanceFailure(
    Reason.ProvisioningTimedOut,
    `Provisioning did not finish within ${formatGoDuration(deadline.timeoutMs)} (${deadline.setting}); it was still waiting: ${wait.reason}: ${wait.message}`,
    [{ type: Reason.ProvisioningTimedOut, status: 'True', ...wait }],
  );
}
