import type { VmProfile } from '../../../api/vm-profile.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { Step } from '../../../reconcile/step-list.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { InstanceTimings } from '../core/timings.js';
import type { GuestApiChecks } from '../core/guest-api-checks.js';
import type { AgentDone } from './crc-agent.js';
import type { AgentCondition } from './crc-agent-diagnostics.js';
import type { SshKeyRef } from './crc-builders.js';
import type { Disk } from './crc-disk-source.js';
import type { CrcEndpoint } from './crc-endpoint.js';
import type { CrcRecords } from './crc-records.js';
import type { CrcWait } from './crc-wait.js';

/**
 * What every step of one crc pass works with: the instance engine's API and timings, the
 * instance's objects under the crc ownership rule, the records of the objects it made, the
 * pass's status draft and its context. What the steps learn is handed on by the step list, not
 * kept here.
 */
export interface CrcPass {
  readonly api: InstanceApi;
  readonly timings: InstanceTimings;
  /** The guest API readiness check, off the worker. */
  readonly guestApi: GuestApiChecks;
  readonly objects: InstanceObjects;
  readonly records: CrcRecords;
  readonly draft: InstanceStatusDraft;
  readonly context: ReconcileContext;
}

/** What the steps of a crc pass hand on: each made by one step, and read by steps after it. */
export interface CrcHandOn {
  /** The pull secret's name, while the instance provisions. */
  pullSecret: string | undefined;
  /** The manual path's bundle key, while the instance provisions. */
  bundleKey: SshKeyRef | undefined;
  /** The API host, and its Route when it has one. */
  endpoint: CrcEndpoint;
  /** The VM profile the boot key binding records (none: KubeVirt's defaults). */
  profile: VmProfile | undefined;
  disk: Disk;
  /** What the root disk waits for while CDI fills it (none once it is filled). */
  diskPending: string | undefined;
  /** The running VMI the agent's work belongs to, and its address. */
  vmiUid: string;
  address: string;
  /** How the agent is done with the VMI, and its Job's condition if it has one. */
  done: AgentDone;
  agent: AgentCondition | undefined;
  /** The operator's own access to the guest, and the version it publishes. */
  access: GuestAccess;
  ocpVersion: string;
}

/** A crc step that reads the hand-on fields `Reads` and makes `Makes`. */
export type CrcStep<
  Reads extends keyof CrcHandOn = never,
  Makes extends keyof CrcHandOn = never,
> = Step<Pick<CrcHandOn, Reads>, Pick<CrcHandOn, Makes>, CrcWait>;

/** A Normal Event about the pass's outcome (sent once its status is written), and a log line. */
export function announce(pass: CrcPass, reason: string, message: string): void {
  pass.context.logger.info({ reason }, message);
  pass.draft.announce('Normal', reason, message);
}
