import { JOBS } from '../../../client/api/core-resources.js';
import type { Desired } from '../../kube/objects.js';
import type { Job, Pod, Volume } from '../../kube/workloads.js';
import { RESTRICTED_CONTAINER_SECURITY, RESTRICTED_POD_SECURITY } from '../../kube/workloads.js';
import type { BuildJobSpec, BuildStep, BuildStepResult } from '../../../contracts/bundle-build.js';
import {
  BUILD_MOUNTS,
  BUILD_TERMINATION_MESSAGE_PATH,
  buildStepArgs,
  BuildJobSpec as JobSpec,
  LABEL_BUILD_STEP,
  parseBuildStepResult,
  STEP_GUEST,
} from '../../../contracts/bundle-build.js';
import type { BuildTimings } from '../../timings.js';
import type { InputRecord } from './build-inputs.js';
import { snapshotItems } from './build-inputs.js';
import type { Bundle } from './build-meta.js';
import { buildLabels, buildMeta } from './build-meta.js';
import type { BuildNames } from './build-names.js';

export const BUILD_CONTAINER = 'bundle-build';
/** On a step's Job and pod: the VMI it is bound to (and LABEL_BUILD_STEP, the step). */
export const ANNOTATION_BUILD_VMI = 'guestcluster.opdev.io/bundle-build-vmi-uid';

/** Steps are idempotent: one more pod after a failed one, then the step (and build) fails. */
export const STEP_BACKOFF_LIMIT = 1;

const PULL_SECRET_STEPS: readonly BuildStep[] = [
  'resolve',
  'ignition',
  'install-wait',
  'day2',
  'image-pin',
  // The marker check: the seal steps grep the disk for the pull secret's content.
  'seal',
  'seal-check',
];

export interface StepJobInputs {
  name: string;
  image: string;
  deadlineSeconds: number;
  spec: BuildJobSpec;
  inputs: readonly InputRecord[];
  snapshotKeys: readonly string[];
}

/** A step Job's activeDeadlineSeconds (`build.*Deadline` timings, whole seconds, at least 1). */
export function stepDeadlineSeconds(step: BuildStep, timings: BuildTimings): number {
  const ms = step === 'install-wait' ? timings.installDeadlineMs : timings.stepDeadlineMs;
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * One agent step's Job (`crc-agent bundle-build <step>`): no API token (it only carries bytes
 * and runs ssh), the build's SSH key and the inputs' snapshot mounted where the contract says,
 * a deadline and a retry limit, and the VMI it was made for in its annotation.
 */
export function buildStepJob(
  bundle: Bundle,
  ns: string,
  names: BuildNames,
  job: StepJobInputs,
): Desired<Job> {
  const { step, attempt } = job.spec;
  const guest = STEP_GUEST[step] !== 'none';
  const items = snapshotItems(job.inputs, job.snapshotKeys);
  const volumes: Volume[] = [];
  const mounts: { name: string; mountPath: string; readOnly?: boolean }[] = [];
  const mount = (volume: Volume, dir: string, readOnly = true): void => {
    volumes.push(volume);
    mounts.push({ name: volume.name, mountPath: dir, readOnly });
  };
  const snapshot = (name: string, list: { key: string; path: string }[], dir: string): void => {
    if (list.length)
      mount({ name, secret: { secretName: names.inputs, items: list, defaultMode: 0o400 } }, dir);
  };
  if (guest)
    mount(
      {
        name: BUILD_MOUNTS.sshKey.volume,
        secret: {
          secretName: names.sshKey,
          items: [{ key: 'id_ecdsa', path: BUILD_MOUNTS.sshKey.file }],
          defaultMode: 0o400,
        },
      },
      BUILD_MOUNTS.sshKey.dir,
    );
  if (PULL_SECRET_STEPS.includes(step))
    snapshot(BUILD_MOUNTS.pullSecret.volume, items.pullSecret, BUILD_MOUNTS.pullSecret.dir);
  if (step === 'ignition')
    snapshot(
      BUILD_MOUNTS.installManifests.volume,
      items.install,
      BUILD_MOUNTS.installManifests.dir,
    );
  if (step === 'customize')
    snapshot(
      BUILD_MOUNTS.postInstallManifests.volume,
      items.post,
      BUILD_MOUNTS.postInstallManifests.dir,
    );
  const claim = (volume: string, claimName: string, dir: string, readOnly = false): void =>
    mount({ name: volume, persistentVolumeClaim: { claimName } }, dir, readOnly);
  if (step === 'publish')
    claim(BUILD_MOUNTS.golden.volume, names.golden, BUILD_MOUNTS.golden.dir, true);
  else claim(BUILD_MOUNTS.work.volume, names.work, BUILD_MOUNTS.work.dir);
  if (step === 'iso') claim(BUILD_MOUNTS.liveIso.volume, names.liveIso, BUILD_MOUNTS.liveIso.dir);
  const labels = { ...buildLabels(bundle, attempt), [LABEL_BUILD_STEP]: step };
  const build = bundle.spec.build;
  const meta = buildMeta(bundle, attempt, ns, job.name, { [LABEL_BUILD_STEP]: step });
  return {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: { ...meta, annotations: { [ANNOTATION_BUILD_VMI]: job.spec.vmiUid } },
    spec: {
      backoffLimit: STEP_BACKOFF_LIMIT,
      activeDeadlineSeconds: job.deadlineSeconds,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          securityContext: RESTRICTED_POD_SECURITY,
          ...(build?.nodeSelector ? { nodeSelector: { ...build.nodeSelector } } : {}),
          ...(build?.tolerations ? { tolerations: build.tolerations } : {}),
          containers: [
            {
              name: BUILD_CONTAINER,
              image: job.image,
              args: buildStepArgs(step),
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              env: Object.entries(JobSpec.toEnv(job.spec)).map(([name, value]) => ({
                name,
                value,
              })),
              volumeMounts: mounts,
              terminationMessagePath: BUILD_TERMINATION_MESSAGE_PATH,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes,
        },
      },
    },
  };
}

/** How a step's Job ended, from its status and its pods' termination messages. */
export type StepOutcome =
  | { running: true }
  | { ok: true; outputs: Record<string, string> }
  | { ok: false; reason: string | undefined; message: string };

function terminated(pods: readonly Pod[], exitZero: boolean) {
  return pods
    .map((pod) => pod.status?.containerStatuses?.find((c) => c.name === BUILD_CONTAINER))
    .map((status) => status?.state?.terminated)
    .filter((t) => t !== undefined && (t.exitCode === 0) === exitZero)
    .sort((a, b) => (a!.finishedAt ?? '').localeCompare(b!.finishedAt ?? ''))
    .pop();
}

/** Failed for good: the Failed condition, or more failed pods than backoffLimit allows. */
export function jobFailed(job: Job): boolean {
  const failed = job.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True');
  return failed === true || (job.status?.failed ?? 0) > (job.spec.backoffLimit ?? 6);
}

export function stepOutcome(step: BuildStep, job: Job, pods: readonly Pod[]): StepOutcome {
  if ((job.status?.succeeded ?? 0) > 0) {
    const result = parseBuildStepResult(step, terminated(pods, true)?.message);
    const outputs = result?.ok ? result.outputs : {};
    return {
      ok: true,
      outputs: Object.fromEntries(
        Object.entries(outputs as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
      ),
    };
  }
  if (!jobFailed(job)) return { running: true };
  return stepFailure(step, job, pods);
}

function stepFailure(step: BuildStep, job: Job, pods: readonly Pod[]): StepOutcome {
  const deadline = job.status?.conditions?.find(
    (c) => c.type === 'Failed' && c.reason === 'DeadlineExceeded',
  );
  if (deadline)
    return {
      ok: false,
      reason: 'StepTimedOut',
      message: `the ${step} step did not finish within ${job.spec.activeDeadlineSeconds}s`,
    };
  const last = terminated(pods, false);
  const result: BuildStepResult | undefined = parseBuildStepResult(step, last?.message);
  if (result && !result.ok) return { ok: false, reason: result.reason, message: result.message };
  const text = (last?.message ?? '').trim();
  return {
    ok: false,
    reason: undefined,
    message:
      text ||
      (last
        ? `the container exited with code ${last.exitCode}`
        : 'no failed pod of the Job was found'),
  };
}
