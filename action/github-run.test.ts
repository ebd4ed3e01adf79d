import { describe, expect, it } from '@jest/globals';
import { defaultLeaseName, gitHubRun } from './github-run.js';

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
