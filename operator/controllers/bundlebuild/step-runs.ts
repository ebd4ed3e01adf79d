import { JOBS, LABEL_JOB_NAME, PODS } from '../../../client/api/core-resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import type { Job, Pod, Secret } from '../../kube/workloads.js';
import type { BuildJobSpec } from '../../../contracts/bundle-build.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import {
  ANNOTATION_BUILD_VMI,
  buildStepJob,
  stepDeadlineSeconds,
  stepOutcome,
} from './build-jobs.js';
import type { BuildPass } from './build-pass.js';
import { stepKey, stepOf, withStep } from './build-record.js';
import type { BuildStage } from './stage-row.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, recorded } from '../../reconcile/verdict.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';
import { isControlledBy } from '../../kube/ownership.js';

/** What a stage tells one step's Job; the rest comes from the bundle and the attempt. */
export type StepSpec = Omit<BuildJobSpec, 'bundleName' | 'bundleUid' | 'attempt' | 'releaseImage'>;

/**
 * Runs one agent step of a stage: its Job (bound to `spec.vmiUid`) is made and recorded, then its
 * outcome read; `holds` once recorded as completed. A recorded Job that is gone is made again (the
 * step repeats; steps are idempotent); a failed one fails the build.
 */
export async function runStep(
  pass: BuildPass,
  stage: BuildStage,
  spec: StepSpec,
): Promise<Verdict<Nothing>> {
  const key = stepKey(stage.code, spec.step);
  const step = stepOf(pass.build, key);
  if (step?.completedAt) return holds();
  const name = pass.names.job(stage.code, spec.step);
  const job = await pass.current<Job>(JOBS, name);
  if (!job || (step?.jobUID && job.metadata.uid !== step.jobUID)) {
    if (job && !pass.ours(job)) return inProgress(`Job ${name} is being replaced`);
    if (job) return inProgress(`a Job ${name} of an earlier run of this step is going`);
    return startStep(pass, key, name, spec);
  }
  if (!step) {
    if (!pass.ours(job))
      throw new StepFailure('BuildObjectConflict', `Job ${name} is not this build's`);
    pass.build = withStep(pass.build, stepRecord(key, job, spec.vmiUid));
    return recorded();
  }
  return finishStep(pass, { key, stage, job, spec });
}

/** A recorded Job of a step: bound to the right VMI, and how it ended. */
async function finishStep(
  pass: BuildPass,
  run: { key: string; stage: BuildStage; job: Stored<Job>; spec: StepSpec },
): Promise<Verdict<Nothing>> {
  const { job, spec } = run;
  const name = job.metadata.name;
  if (job.metadata.annotations?.[ANNOTATION_BUILD_VMI] !== spec.vmiUid) {
    // Made for a VMI that is gone: its result says nothing about this one.
    await pass.ports.client.deleteIfExists(JOBS, job, { propagationPolicy: 'Background' });
    return inProgress(`the ${spec.step} Job was bound to another VMI; running it again`);
  }
  const pods = (
    await pass.ports.client.list<Pod>(PODS, {
      namespace: pass.namespace,
      labelSelector: `${LABEL_JOB_NAME}=${name}`,
    })
  ).filter((pod) => isControlledBy(pod, job));
  const outcome = stepOutcome(spec.step, job, pods);
  if ('running' in outcome) return inProgress(`the ${spec.step} step is running (Job ${name})`);
  if (!outcome.ok)
    throw new StepFailure(
      outcome.reason ?? `${run.stage.name}Failed`,
      `the ${spec.step} step failed (Job ${pass.namespace}/${name}): ${outcome.message}`,
    );
  pass.build = withStep(pass.build, {
    ...stepRecord(run.key, job, spec.vmiUid),
    completedAt: metaTime(pass.ports.clock.now()),
    outputs: outcome.outputs,
  });
  return recorded();
}

async function startStep(
  pass: BuildPass,
  key: string,
  name: string,
  spec: StepSpec,
): Promise<Verdict<Nothing>> {
  const { bundle, names, settings } = pass;
  const inputs = await pass.current<Secret>(SECRETS, names.inputs);
  const desired = buildStepJob(bundle, pass.namespace, names, {
    name,
    image: settings.crcAgentImage,
    deadlineSeconds: stepDeadlineSeconds(spec.step, settings.timings.build),
    spec: {
      ...spec,
      bundleName: bundle.metadata.name,
      bundleUid: bundle.metadata.uid,
      attempt: pass.attempt,
      releaseImage: bundle.spec.build?.releaseImage ?? '',
    },
    inputs: pass.build.inputs ?? [],
    snapshotKeys: Object.keys(inputs?.data ?? {}),
  });
  const job = await pass.create<Job>(JOBS, desired);
  pass.context.logger.info({ job: name, step: spec.step }, 'Started build step');
  pass.build = withStep(pass.build, stepRecord(key, job, spec.vmiUid));
  return recorded();
}

function stepRecord(key: string, job: Stored<Job>, vmiUid: string) {
  return { name: key, jobName: job.metadata.name, jobUID: job.metadata.uid, vmiUID: vmiUid };
}
