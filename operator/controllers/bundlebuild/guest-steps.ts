import { SERVICES } from '../../../client/api/core-resources.js';
import type { BuildStep } from '../../../contracts/bundle-build.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import type { BuildPass } from './build-pass.js';
import { ROLE, stepKey, stepOf } from './build-record.js';
import { runningVmi, vmiAddress, vmiClockOffset, vmiOf } from './build-vmis.js';
import type { BuildStage } from './stage-row.js';
import type { StepSpec } from './step-runs.js';
import { runStep } from './step-runs.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, mapVerdict } from '../../reconcile/verdict.js';
import { StepFailure } from '../../reconcile/step-errors.js';

/** A step's Job spec with no guest (the fields it does not use empty). */
export function stepSpec(
  pass: BuildPass,
  spec: Partial<StepSpec> & Pick<StepSpec, 'step'>,
): StepSpec {
  return {
    certificateRotation: pass.bundle.spec.build?.certificateRotation ?? 'Enabled',
    clockOffsetSeconds: 0,
    sshHost: '',
    vmiUid: '',
    dnsIp: '',
    isoUrl: '',
    isoSha256: '',
    ...spec,
  };
}

/** Whether the build rotates certificates: then the install runs one day in the past. */
export const rotates = (pass: BuildPass): boolean =>
  (pass.bundle.spec.build?.certificateRotation ?? 'Enabled') === 'Enabled';

/** Whether a step of this stage is recorded as completed. */
export function stepDone(pass: BuildPass, stage: BuildStage, step: BuildStep): boolean {
  return !!stepOf(pass.build, stepKey(stage.code, step))?.completedAt;
}

/** The build DNS Service's ClusterIP (docs/bundle-build.md#build-dns), once it has one. */
export async function dnsIp(pass: BuildPass): Promise<string> {
  const service = await pass.current<PlatformObject>(SERVICES, pass.names.dns);
  return (service?.spec?.clusterIP as string | undefined) ?? '';
}

interface Bound {
  sshHost: string;
  vmiUid: string;
  clockOffsetSeconds: number;
}

/**
 * The guest a step of the target VM runs in: the VMI it is bound to once started, else the
 * running target VMI, recorded.
 */
async function boundGuest(
  pass: BuildPass,
  step: BuildStep,
  recordedVmi: string | undefined,
): Promise<Verdict<Bound>> {
  if (recordedVmi) {
    const vmi = await vmiOf(pass, pass.names.targetVm);
    const same = vmi?.metadata.uid === recordedVmi;
    // Any other step's VMI gone or replaced: what the step did there is lost with it, and its
    // Job's result (from a guest that is no longer the target) cannot be taken as done.
    if (!same && step !== 'poweroff') throw replacedUnder(pass, step, recordedVmi, vmi);
    return {
      holds: {
        sshHost: same ? vmiAddress(vmi) : '',
        vmiUid: recordedVmi,
        clockOffsetSeconds: same ? vmiClockOffset(vmi) : 0,
      },
    };
  }
  const target = await runningVmi(pass, ROLE.targetVmi, pass.names.targetVm);
  // The guest's clock is the VMI's offset from real time: the agent checks it holds.
  return mapVerdict(target, ({ vmi, address }) => ({
    sshHost: address,
    vmiUid: vmi.metadata.uid,
    clockOffsetSeconds: vmiClockOffset(vmi),
  }));
}

/**
 * Steps of the target VM, in order, each in its running VMI, recorded. A step already started is
 * bound to its VMI: a poweroff ends it, and that is its success.
 */
export async function onTarget(
  pass: BuildPass,
  stage: BuildStage,
  steps: readonly BuildStep[] = stage.steps,
): Promise<Verdict<Nothing>> {
  for (const step of steps) {
    const started = stepOf(pass.build, stepKey(stage.code, step));
    if (started?.completedAt) continue;
    const bound = await boundGuest(pass, step, started?.vmiUID);
    if (!('holds' in bound)) return bound;
    // The guest's resolver is the build DNS: the checklist and the guest scripts compare with it.
    const dns = await dnsIp(pass);
    const ran = await runStep(pass, stage, stepSpec(pass, { step, ...bound.holds, dnsIp: dns }));
    if (!('holds' in ran)) return ran;
  }
  return holds();
}

function replacedUnder(
  pass: BuildPass,
  step: string,
  bound: string,
  vmi: { metadata: { uid: string } } | undefined,
): StepFailure {
  const target = `VMI ${pass.namespace}/${pass.names.targetVm}`;
  return new StepFailure(
    'BuildVMIReplaced',
    vmi
      ? `${target} was replaced while a step ran (UID ${vmi.metadata.uid}, the ${step} step ran in ${bound}): the guest restarted outside the build, which cannot go on`
      : `${target} is gone (the ${step} step ran in ${bound}): the guest stopped outside the build, which cannot go on`,
  );
}
