import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import type { WorkflowJob } from './github-api.js';
import type { LeaseRun } from './lease-run.js';
import { describeRun } from './lease-run.js';
import type { RunVerdict } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/**
 * Whether a lease's job has completed, from its run attempt's jobs. A lease that names its job id
 * follows that job. One that does not follows the whole attempt: the job that made the lease had
 * started before the lease existed, so it is among the listed jobs, and once every listed job has
 * completed it has too, provided the list is complete (`complete`). Matching by name is not safe
 * (a job's display name can be anything, another job's key included), so it is not tried.
 */
export function judgeJobs(
  run: LeaseRun,
  jobs: readonly WorkflowJob[],
  complete = true,
): RunVerdict {
  const where = describeRun(run);
  if (run.jobId !== undefined) {
    const job = jobs.find((j) => j.id === run.jobId);
    if (!job)
      return {
        status: 'Unknown',
        reason: RunReason.JobNotFound,
        message: `job id ${run.jobId} is not among the ${jobs.length} jobs GitHub lists for ${where}`,
      };
    const named = `job "${job.name}" (id ${job.id}) of ${where}`;
    return job.status === 'completed'
      ? {
          status: 'True',
          reason: RunReason.JobCompleted,
          message: `${named} completed with conclusion ${job.conclusion ?? 'none'}`,
        }
      : { status: 'False', reason: RunReason.JobInProgress, message: `${named} is ${job.status}` };
  }
  if (jobs.length === 0)
    return {
      status: 'Unknown',
      reason: RunReason.JobNotFound,
      message: `GitHub lists no jobs for ${where}`,
    };
  const running = jobs.filter((j) => j.status !== 'completed');
  if (running.length === 0 && !complete)
    return {
      status: 'Unknown',
      reason: RunReason.JobNotFound,
      message: `${where} has more jobs than the operator reads (${jobs.length}); without annotation ${RUN_ANNOTATIONS.jobId} it cannot tell that the lease's job completed`,
    };
  if (running.length === 0)
    return {
      status: 'True',
      reason: RunReason.AttemptCompleted,
      message: `all ${jobs.length} jobs of ${where} completed (${conclusions(jobs)})`,
    };
  const names = running
    .slice(0, 5)
    .map((j) => `"${j.name}" ${j.status}`)
    .join(', ');
  return {
    status: 'False',
    reason: RunReason.AttemptInProgress,
    message: `${running.length} of ${jobs.length} jobs of ${where} have not completed (${names}${running.length > 5 ? ', …' : ''}); without annotation ${RUN_ANNOTATIONS.jobId} the lease follows the whole attempt`,
  };
}

/** "success: 2, failure: 1" */
function conclusions(jobs: readonly WorkflowJob[]): string {
  const counts = new Map<string, number>();
  for (const job of jobs) {
    const conclusion = job.conclusion ?? 'none';
    counts.set(conclusion, (counts.get(conclusion) ?? 0) + 1);
  }
  return [...counts].map(([conclusion, count]) => `${conclusion}: ${count}`).join(', ');
}
