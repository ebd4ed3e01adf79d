import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { Wait } from '../../../reconcile/verdict.js';
import type { AgentCondition } from './crc-agent-diagnostics.js';

/** Why a crc instance is not Ready yet. */
export interface CrcWait extends Wait {
  /** The CRCAgent condition, once the agent Job exists. */
  agent?: AgentCondition;
  /**
   * What GuestAPIReachable says when this wait takes a reachable guest away (default: the message).
   */
  guestApi?: string;
  /** The old VMI's Job or kubeconfig is still going away: the status stays as it is until then. */
  cleanup?: boolean;
}

/**
 * A crc instance that is not Ready (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness): phase Provisioning with why; the CRCAgent condition
 * while the agent is involved, where a failing agent is the reason; no published kubeconfig
 * reference; and a guest that answered before is no longer reachable, for the same reason.
 */
export function recordWait(draft: InstanceStatusDraft, wait: CrcWait): void {
  if (wait.cleanup) return;
  if (wait.agent) {
    draft.condition({ type: 'CRCAgent', ...wait.agent });
    if (wait.agent.status === 'True') draft.waiting(wait.reason, wait.message);
    else draft.waiting(wait.agent.reason, wait.agent.message);
  } else {
    draft.removeCondition('CRCAgent');
    draft.waiting(wait.reason, wait.message);
  }
  draft.status.kubeconfigSecretRef = {};
  const reachable = draft.status.conditions?.find((c) => c.type === 'GuestAPIReachable');
  if (reachable?.status === 'True')
    draft.condition({
      type: 'GuestAPIReachable',
      status: 'False',
      reason: wait.reason,
      message: wait.guestApi ?? wait.message,
    });
}
