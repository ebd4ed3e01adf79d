import { describe, expect, it } from '@jest/globals';
import type { WorkflowJob } from './github-api.js';
import { judgeJobs } from './job-verdict.js';
import type { LeaseRun } from './lease-run.js';

const run: LeaseRun = { owner: 'acme', repo: 'app', runId: 101, attempt: 1, job: 'e2e' };
const job = (id: number, status: string, conclusion: string | null = null): WorkflowJob => ({
  id,
  name: `job-${id}`,
  status,
  conclusion,
});

describe('whether a lease’s job has completed', () => {
  it('follows the named job only', () => {
    const jobs = [job(1, 'completed', 'failure'), job(2, 'in_progress')];
    expect(judgeJobs({ ...run, jobId: 1 }, jobs)).toMatchObject({
      status: 'True',
      reason: 'JobCompleted',
      message:
        'job "job-1" (id 1) of run 101 attempt 1 of acme/app completed with conclusion failure',
    });
    expect(judgeJobs({ ...run, jobId: 2 }, jobs)).toMatchObject({
      status: 'False',
      reason: 'JobInProgress',
    });
    expect(judgeJobs({ ...run, jobId: 3 }, jobs)).toMatchObject({
      status: 'Unknown',
      reason: 'JobNotFound',
    });
  });

  it('without a job id, follows the whole attempt: completed only when every job has', () => {
    expect(judgeJobs(run, [job(1, 'completed', 'success'), job(2, 'queued')])).toMatchObject({
      status: 'False',
      reason: 'AttemptInProgress',
    });
    expect(
      judgeJobs(run, [job(1, 'completed', 'success'), job(2, 'completed', 'skipped')]),
    ).toMatchObject({
      status: 'True',
      reason: 'AttemptCompleted',
      message: 'all 2 jobs of run 101 attempt 1 of acme/app completed (success: 1, skipped: 1)',
    });
    expect(judgeJobs(run, [])).toMatchObject({ status: 'Unknown', reason: 'JobNotFound' });
    // Only part of a very large attempt was read: the lease's job may be among the rest.
    expect(judgeJobs(run, [job(1, 'completed', 'success')], false)).toMatchObject({
      status: 'Unknown',
      reason: 'JobNotFound',
    });
  });
});
