import { describe, expect, it } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../contracts/run-annotations.js';
import { defaultLeaseName, gitHubRun, jobIdInput, runAnnotations } from './github-run.js';

const ENV = {
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_RUN_ID: '42',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'e2e',
  GITHUB_ACTION: '__guestcluster_lease',
  RUNNER_NAME: 'runner-1',
};

describe('defaultLeaseName', () => {
  it('is the same for every try of one step', () => {
    expect(defaultLeaseName(gitHubRun(ENV))).toBe(defaultLeaseName(gitHubRun({ ...ENV })));
  });

  it.each([
    ['another attempt', { GITHUB_RUN_ATTEMPT: '2' }],
    ['another job', { GITHUB_JOB: 'unit' }],
    ['another matrix leg (runner)', { RUNNER_NAME: 'runner-2' }],
    ['another step of the job', { GITHUB_ACTION: '__guestcluster_lease_2' }],
    ['another run', { GITHUB_RUN_ID: '43' }],
  ])('differs for %s', (_, change) => {
    expect(defaultLeaseName(gitHubRun({ ...ENV, ...change }))).not.toBe(
      defaultLeaseName(gitHubRun(ENV)),
    );
  });

  it('needs a run to derive it from', () => {
    expect(defaultLeaseName(gitHubRun({}))).toBeUndefined();
  });
});

describe('the job id', () => {
  it('is written on the lease when the runner gives one, and left out otherwise', () => {
    expect(runAnnotations({ ...gitHubRun(ENV), jobId: jobIdInput(' 51725241954 ') })).toMatchObject(
      {
        [RUN_ANNOTATIONS.jobId]: '51725241954',
        [RUN_ANNOTATIONS.job]: 'e2e',
      },
    );
    for (const unusable of ['', '${{ job.check_run_id }}', '12a', '-1'])
      expect(runAnnotations({ ...gitHubRun(ENV), jobId: jobIdInput(unusable) })).not.toHaveProperty(
        RUN_ANNOTATIONS.jobId,
      );
  });
});
