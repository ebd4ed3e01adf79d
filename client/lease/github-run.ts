import { createHash } from 'node:crypto';
import { RUN_ANNOTATION_PREFIX } from '../../contracts/run-annotations.js';

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
  /** The matrix leg (strategy.job-index), when the runner gives it; "" otherwise. */
  jobIndex?: string;
  /** The leg's matrix values, for people ("os: ubuntu-24.04"); "" outside a matrix. */
  matrix?: string;
}

/** Longest matrix description written on a lease. */
const MAX_MATRIX = 200;

/** Text for one line of the log: no control characters (no line breaks), at most `max` long. */
export function printable(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const line = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The input job-check-run-id as a job id: digits only (GitHub Enterprise Server gives none). */
export function jobIdInput(value: string): string {
  return /^\d{1,20}$/.test(value.trim()) ? value.trim() : '';
}

/** The input job-index as a matrix leg's index: digits only. */
export function jobIndexInput(value: string): string {
  return /^\d{1,6}$/.test(value.trim()) ? value.trim() : '';
}

/**
 * The input matrix (the runner's `toJSON(matrix)`) as "key: value, …"; "" for a job without a
 * matrix ("null") or anything else.
 */
export function matrixInput(value: string): string {
  let matrix: unknown;
  try {
    matrix = JSON.parse(value);
  } catch {
    return '';
  }
  if (!matrix || typeof matrix !== 'object' || Array.isArray(matrix)) return '';
  const values = Object.entries(matrix).map(
    ([key, item]) => `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`,
  );
  return printable(values.join(', '), MAX_MATRIX);
}

/**
 * The run of this step, with what only the inputs' defaults can say (the job id, the matrix leg):
 * the runner evaluates them again for post, which so finds the same job.
 */
export function stepRun(getInput: (name: string) => string, env: NodeJS.ProcessEnv): GitHubRun {
  return {
    ...gitHubRun(env),
    jobId: jobIdInput(getInput('job-check-run-id')),
    jobIndex: jobIndexInput(getInput('job-index')),
    matrix: matrixInput(getInput('matrix')),
  };
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
 * step finds its lease instead of leaking a second one, and differs between jobs, matrix legs
 * (also two that run one after the other on one runner) and steps. Outside GitHub Actions there
 * is no run to derive it from.
 */
export function defaultLeaseName(run: GitHubRun): string | undefined {
  if (!run.runId) return undefined;
  const hash = createHash('sha256')
    .update([run.repository, run.job, run.runner, run.step, run.jobId, run.jobIndex].join('\n'))
    .digest('hex')
    .slice(0, 8);
  return `gh-${run.runId}-${run.attempt}-${hash}`;
}

/** The annotations' names are the operator's contract too (contracts/run-annotations.ts). */
export { RUN_ANNOTATION_PREFIX } from '../../contracts/run-annotations.js';

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
    runner: run.runner,
    'job-index': run.jobIndex ?? '',
    matrix: run.matrix ?? '',
  };
  return Object.fromEntries(
    Object.entries(annotations)
      .filter(([, value]) => value !== '')
      .map(([key, value]) => [RUN_ANNOTATION_PREFIX + key, value]),
  );
}
