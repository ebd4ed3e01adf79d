import { findCondition } from '../../../api/conditions.js';
import { INSTANCES } from '../../../../client/api/resources.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { observePhaseChange } from './instance-metrics.js';
import { Reason } from './reasons.js';
import type { InstanceStatusDraft } from './status-draft.js';

/** Not Ready for a reason someone must look into, though the instance has not failed. */
const WARNING_REASONS = new Set<string>([
  Reason.KubeconfigRejected,
  Reason.UnknownVMProfile,
  Reason.CRCBundleNotAllowed,
]);

/**
 * Writes the draft when it changed: the one status write of a pass. A change of the Ready
 * condition and the draft's announcements go out as Events once it is written. Returns the
 * instance as written (or as it was).
 */
export async function writeInstanceStatus(
  api: InstanceApi,
  draft: InstanceStatusDraft,
): Promise<Instance> {
  if (!draft.changed) return draft.instance;
  const written = await api.updateStatus(INSTANCES, { ...draft.instance, status: draft.status });
  observePhaseChange(api, draft.instance, written);
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
