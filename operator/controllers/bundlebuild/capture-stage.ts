import { DATA_VOLUMES } from '../../api/platform-resources.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import type { BuildPass } from './build-pass.js';
import { ROLE } from './build-record.js';
import { launcherPods, vmiOf } from './build-vmis.js';
import { buildGoldenDataVolume } from './build-vms.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, mapVerdict } from '../../reconcile/verdict.js';
import { runSteps, steps } from '../../reconcile/step-list.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';

type Condition = { type: string; status: string; reason?: string; message?: string };

/**
 * Capture: the golden DataVolume, a CDI clone of the root disk, made only while no VMI and no
 * launcher pod has the disk (a running or failed guest's disk is never a source); done when
 * the clone has Succeeded, failed when CDI reports an error.
 */
export function capture(pass: BuildPass): Promise<Verdict<Nothing>> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'root disk free',
      run: async () => {
        const vmi = await vmiOf(pass, names.targetVm);
        const pods = await launcherPods(pass, names.targetVm);
        if (vmi || pods.length)
          throw new StepFailure(
            'CaptureSourceInUse',
            `the root disk ${ns}/${names.rootDisk} is in use by ${vmi ? `VMI ${vmi.metadata.name}` : `pod ${pods[0]!.metadata.name}`}: the build never clones a disk a guest runs on`,
          );
        return holds();
      },
    })
    .then({
      name: 'golden DataVolume',
      run: async () =>
        mapVerdict(
          await pass.objects.ensureRecorded<PlatformObject>(
            ROLE.golden,
            DATA_VOLUMES,
            names.golden,
            () => buildGoldenDataVolume(bundle, attempt, ns, names, names.golden),
          ),
          (golden) => ({ golden }),
        ),
    })
    .then({ name: 'clone', run: ({ golden }) => cloneOutcome(pass, golden) });
  return runSteps(list, {});
}

/** CDI's word on the clone: Succeeded, an error (Running=False, reason Error; or Failed), or not yet. */
function cloneOutcome(pass: BuildPass, dv: PlatformObject): Verdict<Nothing> {
  const { names, namespace: ns } = pass;
  const phase = (dv.status?.phase as string | undefined) ?? '';
  if (phase === 'Succeeded') return holds();
  const running = ((dv.status?.conditions ?? []) as Condition[]).find((c) => c.type === 'Running');
  if (phase === 'Failed' || (running?.status === 'False' && running.reason === 'Error'))
    throw new StepFailure(
      'CaptureFailed',
      `the clone of ${ns}/${names.rootDisk} into DataVolume ${ns}/${names.golden} failed: ${running?.message || phase}`,
    );
  return inProgress(`cloning the root disk into ${ns}/${names.golden} (${phase || 'Pending'})`);
}
