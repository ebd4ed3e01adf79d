import { badInput } from './exit-codes.js';

/** How the CI job went, as the Action's input job-status says it (docs/reference/cli.md#after-a-failed-job). */
export type JobStatus = 'success' | 'failure' | 'cancelled';

/**
 * The spellings `--job-status` takes: the Action's, and GitLab's `CI_JOB_STATUS` in after_script
 * (`failed`, `canceled`), so that `--job-status "$CI_JOB_STATUS"` needs no mapping.
 */
const SPELLINGS: Record<string, JobStatus> = {
  success: 'success',
  failure: 'failure',
  failed: 'failure',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

/**
 * `--job-status`; unset or empty (`"$CI_JOB_STATUS"` outside after_script) is a job that did not
 * fail: the lease is released as always rather than kept by a mistake.
 */
export function jobStatusFlag(value: string | undefined): JobStatus {
  if (!value) return 'success';
  const status = SPELLINGS[value];
  if (!status)
    throw badInput(
      `--job-status is "${value}"; expected success, failure or cancelled (GitLab's failed and canceled too)`,
    );
  return status;
}
