import type { Job } from '../../../operator/kube/workloads.js';

/**
 * A Job's `activeDeadlineSeconds` as the Job controller keeps it (kubernetes
 * pkg/controller/job/job_controller.go, pastActiveDeadline and syncJob): it counts from
 * `status.startTime`, whatever number of pods ran since; once it has passed, the active pods are
 * deleted, no new pod is made, and the Job gets `FailureTarget` and then, with its pods gone,
 * `Failed`, both with reason `DeadlineExceeded`.
 */
export const DEADLINE_EXCEEDED = {
  reason: 'DeadlineExceeded',
  message: 'Job was active longer than specified deadline',
} as const;

/** Aborts when the Job's deadline passes (at once if it has); never without a deadline. */
export function activeDeadline(job: Job, startTime: string): AbortSignal {
  const seconds = job.spec.activeDeadlineSeconds;
  if (seconds === undefined) return new AbortController().signal;
  const left = Date.parse(startTime) + seconds * 1000 - Date.now();
  return AbortSignal.timeout(Math.max(0, left));
}
