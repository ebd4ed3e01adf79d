import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from './instance-api.js';
import { publishKubeconfig } from './kubeconfig-secret.js';
import type { InstanceStatusDraft } from './status-draft.js';

/** What a topology has once every step holds. */
export interface ReadyGuest {
  /** The operator's own access to the guest API, which the published kubeconfig is written from. */
  access: GuestAccess;
  ocpVersion: string;
  apiEndpoint: string;
  /** The Event that says how the guest became Ready (besides Ready's own). */
  becameReady?: { reason: string; message: string };
}

/**
 * Mark ready (docs/reference/instances.md#common-steps): the canonical `<instance>-kubeconfig`
 * Secret, then phase Ready with the endpoint, version and Secret in the draft; the first time, a
 * log line and the Event.
 */
export async function markReady(
  api: InstanceApi,
  draft: InstanceStatusDraft,
  guest: ReadyGuest,
  context: ReconcileContext,
): Promise<void> {
  const published = await publishKubeconfig(api, draft.instance, { ...guest, context });
  draft.ready({
    ocpVersion: guest.ocpVersion,
    apiEndpoint: guest.apiEndpoint,
    kubeconfig: published,
  });
  if (draft.wasReady) return;
  context.logger.info({ endpoint: guest.apiEndpoint }, 'ClusterInstance is Ready');
  if (guest.becameReady)
    draft.announce('Normal', guest.becameReady.reason, guest.becameReady.message);
}
