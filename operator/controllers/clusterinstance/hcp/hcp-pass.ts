import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { InstanceTimings } from '../core/timings.js';
import type { GuestApiProbe } from '../core/guest-api-probe.js';

/**
 * What every step of one hcp pass works with: the instance engine's API and timings, the
 * instance's objects under the hcp ownership rule, the pass's status draft and its context. What
 * the steps learn is handed on by the step list, not kept here.
 */
export interface HcpPass {
  readonly api: InstanceApi;
  readonly timings: InstanceTimings;
  readonly probe: GuestApiProbe;
  readonly objects: InstanceObjects;
  readonly draft: InstanceStatusDraft;
  readonly context: ReconcileContext;
}
