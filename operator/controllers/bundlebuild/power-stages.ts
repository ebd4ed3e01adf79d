import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../api/platform-resources.js';
import type { Stored } from '../../kube/objects.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import type { BuildPass } from './build-pass.js';
import { ROLE, stepKey, stepOf } from './build-record.js';
import { launcherPods, vmiAddress, vmiOf, vmiPhase } from './build-vmis.js';
import { BUILD_RUN_STRATEGY, HALTED } from './build-vms.js';
import { onTarget } from './guest-steps.js';
import type { BuildStage } from './stage-row.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, recorded } from '../../reconcile/verdict.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';

type Vm = Stored<PlatformObject>;
interface VmTemplateSpec {
  domain?: {
    clock?: { utc?: { offsetSeconds?: number } };
    devices?: { disks?: { name: string }[] };
  };
  volumes?: { name: string }[];
}

const templateOf = (vm: PlatformObject): VmTemplateSpec =>
  (vm.spec?.template as { spec?: VmTemplateSpec } | undefined)?.spec ?? {};
const runStrategyOf = (vm: PlatformObject): string => (vm.spec?.runStrategy as string) ?? '';
const observedRunStrategy = (vm: PlatformObject): string =>
  (vm.status?.runStrategy as string | undefined) ?? '';

/** Whether the VM's template is back in the present: no clock offset and no cdrom. */
function inThePresent(vm: PlatformObject): boolean {
  const spec = templateOf(vm);
  return (
    !spec.domain?.clock?.utc?.offsetSeconds &&
    !(spec.domain?.devices?.disks ?? []).some((d) => d.name === 'cdrom')
  );
}

async function targetVm(pass: BuildPass): Promise<Vm> {
  const vm = await pass.current<PlatformObject>(VIRTUAL_MACHINES, pass.names.targetVm);
  const failure = pass.objects.verify(ROLE.targetVm, vm);
  if (failure) throw failure;
  if (!vm || !pass.objects.recorded(ROLE.targetVm))
    throw new StepFailure(
      vm ? 'BuildObjectReplaced' : 'BuildObjectLost',
      `VirtualMachine ${pass.namespace}/${pass.names.targetVm} is ${vm ? 'not the one the build made' : 'gone'}`,
    );
  return vm;
}

/** The VM with a changed spec, written against the version read (a conflict retries the pass). */
async function updateVm(pass: BuildPass, vm: Vm, change: (spec: Record<string, unknown>) => void) {
  const spec = structuredClone(vm.spec ?? {});
  change(spec);
  await pass.ports.client.update(VIRTUAL_MACHINES, { ...vm, spec });
}

/**
 * ReturnToPresent: the guest powers off (its VMI ends Succeeded and RerunOnFailure does not restart it); with
 * no VMI left the VM is halted, its clock offset set to 0 and the cdrom dropped; then set to
 * RerunOnFailure again once KubeVirt has seen it halted, which starts a new VMI in real time;
 * that VMI is recorded, and the certificates are rotated in it.
 */
export async function returnToPresent(
  pass: BuildPass,
  stage: BuildStage,
): Promise<Verdict<Nothing>> {
  const poweroff = stepOf(pass.build, stepKey(stage.code, 'poweroff'));
  if (!poweroff?.completedAt) return onTarget(pass, stage, ['poweroff']);
  // The VMI recorded is still the one powered off: the restart in the present is to come.
  if (pass.objects.recorded(ROLE.targetVmi)?.uid === poweroff.vmiUID)
    return restartInThePresent(pass, poweroff.vmiUID);
  return onTarget(pass, stage, ['present']);
}

function unexpectedVmi(pass: BuildPass, uid: string): StepFailure {
  return new StepFailure(
    'BuildVMIReplaced',
    `VMI ${pass.namespace}/${pass.names.targetVm} (${uid}) started before the VM was set to the present: something else started it`,
  );
}

/**
 * ZeroAndStop: the guest zeroes its free space and powers off; once neither the VMI nor a launcher pod is
 * left (the disk is no longer mounted), the VM is halted so that nothing starts it again during
 * the clone.
 */
export async function zeroAndStop(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  const steps = await onTarget(pass, stage);
  if (!('holds' in steps)) return steps;
  const vm = await targetVm(pass);
  const vmi = await vmiOf(pass, pass.names.targetVm);
  const poweredOff = stepOf(pass.build, stepKey(stage.code, 'poweroff'))?.vmiUID;
  // Nothing restarts a guest that powered off (RerunOnFailure): another VMI booted the sealed disk.
  if (vmi && vmi.metadata.uid !== poweredOff)
    throw new StepFailure(
      'BuildVMIReplaced',
      `VMI ${pass.namespace}/${pass.names.targetVm} (${vmi.metadata.uid}) started after the guest in ${poweredOff} powered off: it booted the sealed disk, which is no longer fit to capture`,
    );
  if (runStrategyOf(vm) !== HALTED) {
    await updateVm(pass, vm, (spec) => {
      spec.runStrategy = HALTED;
    });
    return inProgress('halting the VM');
  }
  if (vmi) return inProgress(`waiting for VMI ${vmi.metadata.name} to be gone`);
  const pods = await launcherPods(pass, pass.names.targetVm);
  if (pods.length)
    return inProgress(
      `waiting for launcher pod ${pods[0]!.metadata.name} to release the root disk`,
    );
  return holds();
}

/**
 * After ReturnToPresent's poweroff: with the old VMI gone, the VM is halted and set to the present (clock
 * offset 0, no cdrom), then set to RerunOnFailure again once KubeVirt saw it halted; the new VMI
 * is recorded once it runs.
 */
async function restartInThePresent(
  pass: BuildPass,
  poweredOff: string | undefined,
): Promise<Verdict<Nothing>> {
  const vmi = await vmiOf(pass, pass.names.targetVm);
  if (vmi && vmi.metadata.uid === poweredOff)
    return inProgress(`waiting for VMI ${vmi.metadata.name} to end after the guest's poweroff`);
  const vm = await targetVm(pass);
  if (!inThePresent(vm)) {
    if (vmi) throw unexpectedVmi(pass, vmi.metadata.uid);
    await updateVm(pass, vm, (spec) => {
      spec.runStrategy = HALTED;
      const template = (spec.template as { spec: VmTemplateSpec }).spec;
      if (template.domain?.clock?.utc) template.domain.clock.utc = {};
      if (template.domain?.devices?.disks)
        template.domain.devices.disks = template.domain.devices.disks.filter(
          (d) => d.name !== 'cdrom',
        );
      template.volumes = (template.volumes ?? []).filter((v) => v.name !== 'cdrom');
    });
    return inProgress('setting the clock offset to 0 and dropping the cdrom');
  }
  if (runStrategyOf(vm) === HALTED) {
    if (observedRunStrategy(vm) !== HALTED)
      return inProgress('waiting for KubeVirt to see the VM halted');
    await updateVm(pass, vm, (spec) => {
      spec.runStrategy = BUILD_RUN_STRATEGY;
    });
    return inProgress('starting the VM in the present');
  }
  if (!vmi || vmiPhase(vmi) !== 'Running' || !vmiAddress(vmi))
    return inProgress(`waiting for the VM to run in the present and report an IP`);
  const spec = vmi.spec as VmTemplateSpec | undefined;
  if (spec?.domain?.clock?.utc?.offsetSeconds) throw unexpectedVmi(pass, vmi.metadata.uid);
  pass.objects.record(ROLE.targetVmi, VIRTUAL_MACHINE_INSTANCES, vmi);
  return recorded();
}
