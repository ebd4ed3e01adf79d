import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import type { StepPolicy } from '../../../reconcile/step-list.js';
import { runSteps } from '../../../reconcile/step-list.js';
import type { Verdict } from '../../../reconcile/verdict.js';
import type { InstanceApi } from '../core/instance-api.js';
import { Reason } from '../core/reasons.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { InstanceTimings } from '../core/timings.js';
import type { TeardownOutcome, Topology } from '../core/topology.js';
import type { GuestApiProbe } from '../core/guest-api-probe.js';
import { guestApiProbe } from '../core/guest-api-probe.js';
import { GuestApiChecks, guestApiCheckRunner } from '../core/guest-api-checks.js';
import type { OffPathChecks } from '../../../runtime/off-path-checks.js';
import { BootKeyError } from './crc-boot-key.js';
import { crcObjects } from './crc-ownership.js';
import type { CrcPass } from './crc-pass.js';
import { crcRecords, recordCrcIdentity } from './crc-records.js';
import { crcPreconditions, crcSteps } from './crc-steps.js';
import { crcTeardown } from './crc-teardown.js';
import { hibernateCrc } from './crc-hibernation.js';
import type { CrcWait } from './crc-wait.js';
import { recordWait } from './crc-wait.js';
import { crcWatches } from './crc-watches.js';

export interface CrcTopologyOptions {
  /** The guest API readiness check; by default a GET of /readyz through DNS. */
  probe?: GuestApiProbe;
  /**
   * Where the probes run, off the workers and capped (guest-api-checks.ts): one for both
   * topologies, whose ends queue the instance's pass; one of its own, queuing nothing, by default.
   */
  guestChecks?: OffPathChecks<void>;
}

/**
 * The crc topology (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness, docs/reference/instances.md#deletion,
 * docs/reference/instances.md#crc-boot-key, docs/reference/instances.md#crc-api-service-and-route,
 * docs/reference/instances.md#crc-agent-diagnostics): one OpenShift Local VM per instance on
 * KubeVirt, booted from a CDI disk, finished by the crc-agent Job, and published through a
 * passthrough Route. Every pass, Ready or not, runs one ordered list of ensure-steps; Ready is all
 * of them holding. The VMI the agent's work belongs to is the list's precondition.
 */
export class CrcTopology implements Topology {
  readonly platformGate = { multiClusterEngine: false, wildcardRoutes: false, whenReady: true };
  private readonly guestApi: GuestApiChecks;

  constructor(
    private readonly api: InstanceApi,
    private readonly timings: InstanceTimings,
    options: CrcTopologyOptions = {},
  ) {
    this.guestApi = new GuestApiChecks(
      options.guestChecks ?? guestApiCheckRunner(() => undefined),
      options.probe ?? guestApiProbe(),
    );
  }

  watches(): WatchSpec[] {
    return crcWatches(this.api);
  }

  async reconcile(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult> {
    const { api, timings, guestApi } = this;
    const objects = crcObjects(api, draft.instance);
    const records = crcRecords(draft);
    const pass: CrcPass = { api, timings, guestApi, objects, records, draft, context };
    // The preconditions' errors, but for the identity's conflicts, are retried with backoff.
    const before = await runSteps(crcPreconditions(pass), {});
    if (!('holds' in before)) return this.answer(draft, before);
    return this.answer(draft, await runSteps(crcSteps(pass), {}, this.policy(draft)));
  }

  async hibernate(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult> {
    const { api, timings, guestApi } = this;
    const objects = crcObjects(api, draft.instance);
    const records = crcRecords(draft);
    return hibernateCrc({ api, timings, guestApi, objects, records, draft, context });
  }

  async teardown(draft: InstanceStatusDraft, context: ReconcileContext): Promise<TeardownOutcome> {
    const objects = crcObjects(this.api, draft.instance);
    const before = JSON.stringify(draft.status.crc ?? {});
    await recordCrcIdentity(objects, draft, { live: true, vmi: true });
    // The VMI's UID is durable before anything that proves its pods ours is deleted.
    if (JSON.stringify(draft.status.crc) !== before) return 'recorded';
    const pending = await crcTeardown(this.api, objects);
    if (!pending) context.logger.info('Deleted the CRC backing objects');
    return pending ? 'pending' : 'done';
  }

  /**
   * A boot key problem waits (it may be fixed); a Ready instance's health check retries what it
   * cannot do (docs/reference/instances.md#crc-readiness), provisioning fails it with
   * ReconcileError (docs/reference/instances.md#crc-provisioning).
   */
  private policy(draft: InstanceStatusDraft): StepPolicy<CrcWait> {
    const recheckMs = this.timings.recheckMs;
    return {
      waitFor: (error) =>
        error instanceof BootKeyError
          ? { reason: Reason.BootKeyUnavailable, message: error.message, requeueAfterMs: recheckMs }
          : undefined,
      unexpected: draft.wasReady ? undefined : Reason.ReconcileError,
    };
  }

  /**
   * The pass's verdict into the draft: a failure fails the instance, a wait is phase Provisioning
   * with why (docs/reference/instances.md#crc-provisioning), a record is written first, and a
   * Ready instance is checked again after a while.
   */
  private answer(draft: InstanceStatusDraft, verdict: Verdict<object, CrcWait>): ReconcileResult {
    if ('fail' in verdict) throw verdict.fail;
    if ('wait' in verdict) {
      recordWait(draft, verdict.wait);
      return verdict.wait.requeueAfterMs ? { requeueAfterMs: verdict.wait.requeueAfterMs } : {};
    }
    if ('record' in verdict) {
      if (!draft.wasReady) draft.phase('Provisioning');
      return {};
    }
    return { requeueAfterMs: this.timings.readyRecheckMs };
  }
}
