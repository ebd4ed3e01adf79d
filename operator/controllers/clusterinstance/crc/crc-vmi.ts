import { JOBS } from '../../../api/core-resources.js';
import { VIRTUAL_MACHINE_INSTANCES } from '../../../api/platform-resources.js';
import { SECRETS } from '../../../api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { kubeconfigSecretName } from '../core/naming.js';
import type { PlatformObject } from '../core/platform-object.js';
import { Reason } from '../core/reasons.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { CrcWait } from './crc-wait.js';
import { agentJobName, crcDiskName, crcVmName } from './crc-naming.js';

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
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
): Promise<CrcWait | undefined> {
  const recorded = objects.instance.status?.crc?.vmiUID;
  const vmi = await currentVmi(objects);
  const uid = vmi?.metadata?.uid;
  if (draft.wasReady) {
    if (!vmi) return invalidate(objects, draft, Reason.VMIUnavailable, NOT_RUNNING);
    if (vmiPhase(vmi) !== 'Running')
      return invalidate(objects, draft, Reason.VMIUnavailable, NOT_RUNNING, uid);
    if (!recorded)
      return invalidate(
        objects,
        draft,
        Reason.VMIIdentityUnknown,
        'CRC VirtualMachineInstance identity was not recorded; rerunning post-boot setup',
        uid,
      );
  }
  if (vmi && recorded && recorded !== uid)
    return invalidate(
      objects,
      draft,
      Reason.VMIReplaced,
      'CRC VirtualMachineInstance was replaced; rerunning post-boot setup',
      uid,
    );
  return undefined;
}

/**
 * Invalidate readiness (docs/reference/instances.md#crc-readiness): the recorded VMI's agent Job
 * goes (foreground: its pods first), then the published kubeconfig; only then is the new VMI
 * recorded, so a later pass still knows what to delete. While they are going away the status stays
 * as it is (their deletion events bring the next pass).
 */
async function invalidate(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
  reason: string,
  message: string,
  newVmiUid?: string,
): Promise<CrcWait> {
  const instance = objects.instance;
  const name = instance.metadata.name;
  const recorded = instance.status?.crc?.vmiUID;
  const jobGoing =
    !!recorded &&
    (await objects.remove(JOBS, agentJobName(name, recorded), { propagationPolicy: 'Foreground' }));
  if (jobGoing || (await objects.remove(SECRETS, kubeconfigSecretName(name))))
    return { reason, message, cleanup: true };
  draft.status.crc = {
    ...draft.status.crc,
    vmName: crcVmName(instance),
    dataVolumeName: crcDiskName(instance),
    ...(newVmiUid ? { vmiUID: newVmiUid } : {}),
  };
  if (draft.wasReady) draft.announce('Warning', reason, message);
  return { reason, message };
}

/**
 * The VMI runs and has an address (docs/reference/instances.md#crc-provisioning): its UID and
 * address are recorded in the draft and returned; else why the pass waits.
 */
export async function runningVmi(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
): Promise<{ uid: string; address: string } | CrcWait> {
  const where = `VirtualMachineInstance ${objects.namespace}/${crcVmName(objects.instance)}`;
  const pending = (message: string): CrcWait => ({ reason: Reason.CRCBackingPending, message });
  const vmi = await currentVmi(objects);
  if (!vmi || vmiPhase(vmi) !== 'Running') return pending(`waiting for ${where} to run`);
  const interfaces = (vmi.status as { interfaces?: { ipAddress?: string }[] }).interfaces;
  const uid = vmi.metadata.uid;
  const address = interfaces?.find((i) => i.ipAddress)?.ipAddress;
  draft.status.crc = {
    ...draft.status.crc,
    vmiUID: uid,
    ...(address ? { sshEndpoint: address } : {}),
  };
  return address ? { uid, address } : pending(`waiting for ${where} to get an IP address`);
}
