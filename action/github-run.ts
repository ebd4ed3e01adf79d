import { createHash } from 'node:crypto';
import { RUN_ANNOTATION_PREFIX } from '../contracts/run-annotations.js';

/** The GitHub run a step belongs to, from the runner's environment. */
export interface GitHubRun {
  repository: string;
  workflow: string;
  runId: string;
  attempt: string;
  job: string;
  /** The step's id: tells two uses of the Action in one job apart. */
  step: string;
  /** Tells the jobs of a matrix apart: they share the job id but run on different runners. */
  runner: string;
  url: string;
  /** The job's numeric id (job.check_run_id), when the runner gives it; "" otherwise. */
  jobId?: string;
}

/** The input job-check-run-id as a job id: digits only (GitHub Enterprise Server gives none). */
export function jobIdInput(value: string): string {
  return /^\d{1,20}$/.test(value.trim()) ? value.trim() : '';
}

export function gitHubRun(env: NodeJS.ProcessEnv): GitHubRun {
  const repository = env.GITHUB_REPOSITORY ?? '';
  const runId = env.GITHUB_RUN_ID ?? '';
  const attempt = env.GITHUB_RUN_ATTEMPT ?? '1';
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    repository,
    workflow: env.GITHUB_WORKFLOW ?? '',
    runId,
    attempt,
    job: env.GITHUB_JOB ?? '',
    step: env.GITHUB_ACTION ?? '',
    runner: env.RUNNER_NAME ?? '',
    url:
      repository && runId
        ? `${server}/${repository}/actions/runs/${runId}/attempts/${attempt}`
        : '',
  };
}

/** Who asked, for the lease's audit field: "owner/repo CI run 123 attempt 1 job test". */
export function defaultRequestedBy(run: GitHubRun): string {
  if (!run.runId) return 'guestcluster Action outside GitHub Actions';
  return `${run.repository} ${run.workflow} run ${run.runId} attempt ${run.attempt} job ${run.job}`.trim();
}

/**
 * A lease name that is the same every time this step runs in this run attempt, so that a retried
 * step finds its lease instead of leaking a second one, and differs between jobs, matrix legs and
 * steps. Outside GitHub Actions there is no run to derive it from.
 */
export function defaultLeaseName(run: GitHubRun): string | undefined {
  if (!run.runId) return undefined;
  const hash = createHash('sha256')
    .update([run.repository, run.job, run.runner, run.step].join('\n'))
    .digest('hex')
    .slice(0, 8);
  return `gh-${run.runId}-${run.attempt}-${hash}`;
}

/** The annotations' names are the operator's contract too (contracts/run-annotations.ts). */
export { RUN_ANNOTATION_PREFIX } from '../contracts/run-annotations.js';

/** Annotations that tie a lease to its run, for people and for adopting it on a retried step. */
export function runAnnotations(run: GitHubRun): Record<string, string> {
  const annotations: Record<string, string> = {
    repository: run.repository,
    workflow: run.workflow,
    'run-id': run.runId,
    'run-attempt': run.attempt,
    job: run.job,
    'job-id': run.jobId ?? '',
    'run-url': run.url,
  };
  return Object.fromEntries(
    Object.entries(annotations)
      .filter(([, value]) => value !== '')
      .map(([key, value]) => [RUN_ANNOTATION_PREFIX + key, value]),
  );
}
