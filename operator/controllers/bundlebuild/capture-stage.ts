import { DATA_VOLUMES } from '../../api/platform-resources.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import type { BuildPass } from './build-pass.js';
import { ROLE } from './build-record.js';
import { launcherPods, vmiOf } from './build-vmis.js';
import { buildGoldenDataVolume } from './build-vms.js';
import type { StageVerdict } from './stage-verdict.js';
import { BuildFailure, HOLDS, onHolds, waiting } from './stage-verdict.js';

type Condition = { type: string; status: string; reason?: string; message?: string };

/**
 * Capture: the golden DataVolume, a CDI clone of the root disk, made only while no VMI and no
 * launcher pod has the disk (a running or failed guest's disk is never a source); done when
 * the clone has Succeeded, failed when CDI reports an error.
 */
export async function capture(pass: BuildPass): Promise<StageVerdict> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const vmi = await vmiOf(pass, names.targetVm);
  const pods = await launcherPods(pass, names.targetVm);
  if (vmi || pods.length)
    throw new BuildFailure(
      'CaptureSourceInUse',
      `the root disk ${ns}/${names.rootDisk} is in use by ${vmi ? `VMI ${vmi.metadata.name}` : `pod ${pods[0]!.metadata.name}`}: the build never clones a disk a guest runs on`,
    );
  const dv = await pass.ensure<PlatformObject>(ROLE.golden, DATA_VOLUMES, names.golden, () =>
    buildGoldenDataVolume(bundle, attempt, ns, names, names.golden),
  );
  return onHolds(dv, (golden) => cloneOutcome(pass, golden));
}

/** CDI's word on the clone: Succeeded, an error (Running=False, reason Error; or Failed), or not yet. */
function cloneOutcome(pass: BuildPass, dv: PlatformObject): StageVerdict {
  const { names, namespace: ns } = pass;
  const phase = (dv.status?.phase as string | undefined) ?? '';
  if (phase === 'Succeeded') return HOLDS;
  const running = ((dv.status?.conditions ?? []) as Condition[]).find((c) => c.type === 'Running');
  if (phase === 'Failed' || (running?.status === 'False' && running.reason === 'Error'))
    throw new BuildFailure(
      'CaptureFailed',
      `the clone of ${ns}/${names.rootDisk} into DataVolume ${ns}/${names.golden} failed: ${running?.message || phase}`,
    );
  return waiting(`cloning the root disk into ${ns}/${names.golden} (${phase || 'Pending'})`);
}
