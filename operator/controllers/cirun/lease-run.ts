import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import type { ClusterLease } from '../../../client/api/resources.js';

/** The GitHub run attempt (and, when known, the job) a lease was made for. */
export interface LeaseRun {
  owner: string;
  repo: string;
  runId: number;
  attempt: number;
  /** The job's key in the workflow (GITHUB_JOB), for messages. */
  job: string;
  /** The workflow job's numeric id, when the lease names it. */
  jobId?: number;
}

/** One run attempt: every lease of it shares one question to GitHub. */
export const runKey = (run: LeaseRun): string =>
  `${run.owner}/${run.repo}#${run.runId}#${run.attempt}`.toLowerCase();

export const describeRun = (run: LeaseRun): string =>
  `run ${run.runId} attempt ${run.attempt} of ${run.owner}/${run.repo}`;

const OWNER = /^[A-Za-z0-9-]{1,39}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const ID = /^[1-9]\d{0,14}$/;

/**
 * The run a lease names in its annotations: undefined when it names none (not the Action's lease);
 * `invalid` with a message naming the annotation when they are malformed. Strict patterns, so that
 * a tenant's annotation can only ever become a repository and numbers in GitHub's URL.
 */
export function leaseRun(lease: ClusterLease): LeaseRun | { invalid: string } | undefined {
  const annotations = lease.metadata?.annotations ?? {};
  const runId = annotations[RUN_ANNOTATIONS.runId];
  if (runId === undefined) return undefined;
  const repository = annotations[RUN_ANNOTATIONS.repository] ?? '';
  const attempt = annotations[RUN_ANNOTATIONS.runAttempt] ?? '1';
  const jobId = annotations[RUN_ANNOTATIONS.jobId];
  const problem = malformed(repository, runId, attempt, jobId);
  if (problem) return { invalid: problem };
  const [owner = '', repo = ''] = repository.split('/');
  return {
    owner,
    repo,
    runId: Number(runId),
    attempt: Number(attempt),
    job: annotations[RUN_ANNOTATIONS.job] ?? '',
    ...(jobId !== undefined ? { jobId: Number(jobId) } : {}),
  };
}

/** Which annotation is malformed, and how; undefined when none is. */
function malformed(
  repository: string,
  runId: string,
  attempt: string,
  jobId: string | undefined,
): string | undefined {
  const [owner = '', repo = '', ...rest] = repository.split('/');
  const must = (annotation: string, value: string, expected: string): string =>
    `annotation ${annotation} must be ${expected} (got "${value}")`;
  if (!OWNER.test(owner) || !REPO.test(repo) || rest.length > 0)
    return must(RUN_ANNOTATIONS.repository, repository, 'owner/repo');
  if (!ID.test(runId)) return must(RUN_ANNOTATIONS.runId, runId, 'a run id');
  if (!/^[1-9]\d{0,5}$/.test(attempt))
    return must(RUN_ANNOTATIONS.runAttempt, attempt, 'an attempt number');
  if (jobId !== undefined && !ID.test(jobId)) return must(RUN_ANNOTATIONS.jobId, jobId, 'a job id');
  return undefined;
}
