import { JOBS } from '../../../../client/api/core-resources.js';
import { VIRTUAL_MACHINE_INSTANCES } from '../../../api/platform-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { kubeconfigSecretName } from '../core/naming.js';
import type { PlatformObject } from '../core/platform-object.js';
import { Reason } from '../core/reasons.js';
import type { CrcPass } from './crc-pass.js';
import { recordCrcNames } from './crc-records.js';
import type { CrcWait } from './crc-wait.js';
import { agentJobName, crcVmName } from './crc-naming.js';

const NOT_RUNNING = 'CRC VirtualMachineInstance is not running';

/** The VMI of the instance as the cache has it, verified to be the instance's. */
export async function currentVmi(
  objects: InstanceObjects,
): Promise<Stored<PlatformObject> | undefined> {
  const vmi = objects.cached<PlatformObject>(
    VIRTUAL_MACHINE_INSTANCES,
    crcVmName(objects.instance),
  );
  if (vmi) await objects.verify(VIRTUAL_MACHINE_INSTANCES, vmi);
  return vmi;
}

export const vmiPhase = (vmi: PlatformObject | undefined): string | undefined =>
  (vmi?.status as { phase?: string } | undefined)?.phase;

/**
 * The precondition of every crc pass (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness): the agent Job, the handoff and the published
 * kubeconfig belong to the VMI whose UID the instance records. A VMI of another UID invalidates
 * them; so does, for an instance that was Ready, a VMI that is gone or not running, or one whose
 * UID was never recorded. Undefined when the precondition holds.
 */
export async function vmiPrecondition(
  pass: Pick<CrcPass, 'objects' | 'records' | 'draft'>,
): Promise<CrcWait | undefined> {
  const recorded = pass.records.recorded('VirtualMachineInstance')?.uid;
  const vmi = await currentVmi(pass.objects);
  const notRunning = { reason: Reason.VMIUnavailable, message: NOT_RUNNING };
  // Another VMI than the recorded one is a replacement whether or not it runs yet (a new one is
  // scheduled before it runs).
  if (vmi && recorded && recorded !== vmi.metadata.uid)
    return invalidate(
      pass,
      {
        reason: Reason.VMIReplaced,
        message: 'CRC VirtualMachineInstance was replaced; rerunning post-boot setup',
      },
      vmi,
    );
  if (pass.draft.wasReady) {
    if (!vmi) return invalidate(pass, notRunning);
    if (vmiPhase(vmi) !== 'Running') return invalidate(pass, notRunning, vmi);
    if (!recorded)
      return invalidate(
        pass,
        {
          reason: Reason.VMIIdentityUnknown,
          message:
            'CRC VirtualMachineInstance identity was not recorded; rerunning post-boot setup',
        },
        vmi,
      );
  }
  return undefined;
}

/**
 * Invalidate readiness (docs/reference/instances.md#crc-readiness): the recorded VMI's agent Job
 * goes (foreground: its pods first), then the published kubeconfig; only then is the new VMI
 * recorded, so a later pass still knows what to delete. While they are going away the status stays
 * as it is (their deletion events bring the next pass).
 */
async function invalidate(
  pass: Pick<CrcPass, 'objects' | 'records' | 'draft'>,
  why: { reason: string; message: string },
  vmi?: Stored<PlatformObject>,
): Promise<CrcWait> {
  const { objects, records, draft } = pass;
  const name = objects.instance.metadata.name;
  const recorded = records.recorded('VirtualMachineInstance')?.uid;
  const jobGoing =
    !!recorded &&
    (await objects.remove(JOBS, agentJobName(name, recorded), { propagationPolicy: 'Foreground' }));
  if (jobGoing || (await objects.remove(SECRETS, kubeconfigSecretName(name))))
    return { ...why, cleanup: true };
  recordCrcNames(draft);
  if (vmi) records.record('VirtualMachineInstance', VIRTUAL_MACHINE_INSTANCES, vmi);
  if (draft.wasReady) draft.announce('Warning', why.reason, why.message);
  return why;
}

/**
 * Why a VMI that does not run is not scheduled, in the platform's words
 * (docs/reference/instances.md#crc-provisioning): KubeVirt copies its launcher pod's
 * PodScheduled=False condition onto the VMI. Undefined when it has no such condition.
 */
export function unschedulableVmi(
  where: string,
  vmi: PlatformObject | undefined,
): CrcWait | undefined {
  if (!vmi || vmiPhase(vmi) === 'Running') return undefined;
  const conditions = (vmi.status as { conditions?: VmiCondition[] } | undefined)?.conditions;
  const scheduled = conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False') return undefined;
  return {
    reason: Reason.VMIUnschedulable,
    message: `${where} is not scheduled: PodScheduled=False (${scheduled.reason ?? ''}): ${scheduled.message ?? ''}`,
  };
}

type VmiCondition = { type: string; status: string; reason?: string; message?: string };

/**
 * The VMI runs and has an address (docs/reference/instances.md#crc-provisioning): its UID and
 * address are recorded in the draft and returned; else why the pass waits.
 */
export async function runningVmi(
  pass: Pick<CrcPass, 'objects' | 'records' | 'draft'>,
): Promise<{ uid: string; address: string } | CrcWait> {
  const { objects, draft } = pass;
  const where = `VirtualMachineInstance ${objects.namespace}/${crcVmName(objects.instance)}`;
  const pending = (message: string): CrcWait => ({ reason: Reason.CRCBackingPending, message });
  const vmi = await currentVmi(objects);
  const unscheduled = unschedulableVmi(where, vmi);
  if (unscheduled) return unscheduled;
  if (!vmi || vmiPhase(vmi) !== 'Running') return pending(`waiting for ${where} to run`);
  const interfaces = (vmi.status as { interfaces?: { ipAddress?: string }[] }).interfaces;
  const address = interfaces?.find((i) => i.ipAddress)?.ipAddress;
  pass.records.record('VirtualMachineInstance', VIRTUAL_MACHINE_INSTANCES, vmi);
  if (address) draft.status.crc = { ...draft.status.crc, sshEndpoint: address };
  if (!address) return pending(`waiting for ${where} to get an IP address`);
  return { uid: vmi.metadata.uid, address };
}
