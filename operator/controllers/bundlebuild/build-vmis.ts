import { PODS } from '../../../client/api/core-resources.js';
import { LABEL_VM_NAME, VIRTUAL_MACHINE_INSTANCES } from '../../api/platform-resources.js';
import type { Stored } from '../../kube/objects.js';
import type { Pod } from '../../kube/workloads.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import type { BuildPass } from './build-pass.js';
import type { Role } from './build-record.js';
import type { Verdict } from '../../reconcile/verdict.js';
import { holds, recorded } from '../../reconcile/verdict.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';

export type Vmi = Stored<PlatformObject>;

/** The VMI's first address, once the guest reports one. */
export function vmiAddress(vmi: PlatformObject | undefined): string {
  const interfaces = (vmi?.status?.interfaces ?? []) as { ipAddress?: string }[];
  return interfaces[0]?.ipAddress ?? '';
}

/** The VMI's clock offset from real time (spec.domain.clock.utc.offsetSeconds), 0 without one. */
export function vmiClockOffset(vmi: PlatformObject | undefined): number {
  const domain = vmi?.spec?.domain as { clock?: { utc?: { offsetSeconds?: number } } } | undefined;
  return domain?.clock?.utc?.offsetSeconds ?? 0;
}

export function vmiPhase(vmi: PlatformObject | undefined): string {
  return (vmi?.status?.phase as string | undefined) ?? '';
}

/** The live VMI of a VM (the VMI has the VM's name), not one being deleted. */
export async function vmiOf(pass: BuildPass, vmName: string): Promise<Vmi | undefined> {
  return pass.current<PlatformObject>(VIRTUAL_MACHINE_INSTANCES, vmName);
}

/** The launcher pods of a VM still there (any phase but gone): its disks are mounted. */
export async function launcherPods(pass: BuildPass, vmName: string): Promise<Stored<Pod>[]> {
  return pass.ports.client.list<Pod>(PODS, {
    namespace: pass.namespace,
    labelSelector: `${LABEL_VM_NAME}=${vmName},kubevirt.io=virt-launcher`,
  });
}

/**
 * The running VMI of a VM with its address, its UID recorded under `role` before any Job is
 * bound to it. A VMI of another UID than the recorded one means the guest was restarted behind
 * the build's back: what ran in the old one is lost, and the build fails.
 */
export async function runningVmi(
  pass: BuildPass,
  role: Role,
  vmName: string,
): Promise<Verdict<{ vmi: Vmi; address: string }>> {
  const vmi = await vmiOf(pass, vmName);
  const kept = pass.objects.recorded(role);
  if (kept && vmi && vmi.metadata.uid !== kept.uid)
    throw new StepFailure(
      'BuildVMIReplaced',
      `VMI ${pass.namespace}/${vmName} was replaced (UID ${vmi.metadata.uid}, the build ran in ${kept.uid}): the guest restarted outside the build, which cannot go on`,
    );
  if (!vmi || vmi.metadata.deletionTimestamp)
    return inProgress(`waiting for VMI ${pass.namespace}/${vmName} to start`);
  const phase = vmiPhase(vmi);
  if (phase === 'Failed' || phase === 'Succeeded')
    throw new StepFailure(
      'BuildVMIStopped',
      `VMI ${pass.namespace}/${vmName} ended (${phase}) while the build needed it`,
    );
  const address = vmiAddress(vmi);
  if (phase !== 'Running' || !address)
    return inProgress(
      `waiting for VMI ${pass.namespace}/${vmName} to run and report an IP (phase ${phase || 'none'}); a VMI that never gets one points at the pod network or the guest's boot`,
    );
  if (!kept) {
    pass.objects.record(role, VIRTUAL_MACHINE_INSTANCES, vmi);
    return recorded({ vmi, address });
  }
  return holds({ vmi, address });
}
