import { findCondition } from '../../../api/conditions.js';
import { INSTANCES } from '../../../../client/api/resources.js';
import type { Logger } from '../../../runtime/logger.js';
import { nameFailureDiagnostics, storeFailureDiagnostics } from './failure-diagnostics.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { observePhaseChange } from './instance-metrics.js';
import { Reason } from './reasons.js';
import type { InstanceStatusDraft } from './status-draft.js';

/**
 * Waits only a person ends (docs/reference/kinds.md#waits-that-need-a-person): the namespace
 * opt-in, and the platform gate's reasons that no operand fixes by itself (platform-readiness.ts;
 * not StatusStale or OperandNotReady, which the platform's operators catch up on).
 */
export const INSTANCE_NEEDS_A_PERSON: ReadonlySet<string> = new Set<string>([
  'NamespaceDisabled',
  'APIUnavailable',
  'OperandNotFound',
  'MultipleOperandsFound',
  'ComponentDisabled',
  'WildcardRoutesNotAllowed',
]);

/** Not Ready for a reason someone must look into, though the instance has not failed. */
const WARNING_REASONS = new Set<string>([
  Reason.KubeconfigRejected,
  Reason.UnknownVMProfile,
  Reason.CRCBundleNotAllowed,
  ...INSTANCE_NEEDS_A_PERSON,
]);

/**
 * Writes the draft when it changed: the one status write of a pass. A change of the Ready
 * condition and the draft's announcements go out as Events once it is written; so a wait is
 * announced by the pass that starts it, decided from the stored condition, never again by its
 * later passes (also after a restart). Returns the
 * instance as written (or as it was).
 */
export async function writeInstanceStatus(
  api: InstanceApi,
  draft: InstanceStatusDraft,
  logger?: Logger,
): Promise<Instance> {
  nameFailureDiagnostics(draft);
  if (!draft.changed) return draft.instance;
  const written = await api.updateStatus(INSTANCES, { ...draft.instance, status: draft.status });
  observePhaseChange(api, draft.instance, written);
  storeFailureDiagnostics(api, draft.instance, written, logger);
  const before = findCondition(draft.instance.status?.conditions, 'Ready');
  const after = findCondition(draft.status.conditions, 'Ready');
  if (after && (before?.reason !== after.reason || before.status !== after.status)) {
    const warning = draft.status.phase === 'Failed' || WARNING_REASONS.has(after.reason);
    api.event(written, warning ? 'Warning' : 'Normal', after.reason, after.message);
  }
  for (const { type, reason, message } of draft.announcements)
    api.event(written, type, reason, message);
  return written;
}
