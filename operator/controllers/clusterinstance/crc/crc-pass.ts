import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { InstanceTimings } from '../core/timings.js';
import type { GuestApiProbe } from '../core/guest-api-probe.js';
import type { CrcRecords } from './crc-records.js';

/**
 * What every step of one crc pass works with: the instance engine's API and timings, the
 * instance's objects under the crc ownership rule, the records of the objects it made, the
 * pass's status draft and its context. What the steps learn is handed on by the step list, not
 * kept here.
 */
export interface CrcPass {
  readonly api: InstanceApi;
  readonly timings: InstanceTimings;
  readonly probe: GuestApiProbe;
  readonly objects: InstanceObjects;
  readonly records: CrcRecords;
  readonly draft: InstanceStatusDraft;
  readonly context: ReconcileContext;
}

/** A Normal Event about the pass's outcome (sent once its status is written), and a log line. */
export function announce(pass: CrcPass, reason: string, message: string): void {
  pass.context.logger.info({ reason }, message);
  pass.draft.announce('Normal', reason, message);
}
