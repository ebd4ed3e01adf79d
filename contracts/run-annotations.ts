/**
 * The annotations that tie a lease to the GitHub Actions run that made it: the Action writes them
 * (action/github-run.ts), the operator reads them to ask GitHub whether the run's job has
 * completed (ADR 0024). A tenant writes them too, so the operator treats them as untrusted input.
 */
export const RUN_ANNOTATION_PREFIX = 'guestcluster.opdev.io/github-';

export const RUN_ANNOTATIONS = {
  /** "owner/repo" */
  repository: `${RUN_ANNOTATION_PREFIX}repository`,
  workflow: `${RUN_ANNOTATION_PREFIX}workflow`,
  /** GITHUB_RUN_ID: the workflow run's numeric id. */
  runId: `${RUN_ANNOTATION_PREFIX}run-id`,
  /** GITHUB_RUN_ATTEMPT: 1, then 2… for re-runs. */
  runAttempt: `${RUN_ANNOTATION_PREFIX}run-attempt`,
  /** GITHUB_JOB: the job's key in the workflow file (not the numeric id). */
  job: `${RUN_ANNOTATION_PREFIX}job`,
  /** The job's numeric id (the workflow job's `id`, the job context's `check_run_id`); optional. */
  jobId: `${RUN_ANNOTATION_PREFIX}job-id`,
  runUrl: `${RUN_ANNOTATION_PREFIX}run-url`,
  /**
   * RUNNER_NAME, `strategy.job-index` and the leg's matrix values ("os: ubuntu-24.04"): with the
   * job id, they tell one job's leases from another leg's; only the Action reads them.
   */
  runner: `${RUN_ANNOTATION_PREFIX}runner`,
  jobIndex: `${RUN_ANNOTATION_PREFIX}job-index`,
  matrix: `${RUN_ANNOTATION_PREFIX}matrix`,
} as const;

/**
 * On a lease that is to outlive its job (the Action's input `release: false`): the operator does
 * not release it when the job completes; its TTL or a delete does.
 */
export const ANNOTATION_KEEP_AFTER_JOB = 'guestcluster.opdev.io/keep-after-job';
