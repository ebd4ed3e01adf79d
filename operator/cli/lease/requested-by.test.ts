import os from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { requestedBy } from './requested-by.js';

describe('requestedBy', () => {
  it('names the GitLab job from its predefined variables', () => {
    expect(
      requestedBy({
        GITLAB_CI: 'true',
        CI_PROJECT_PATH: 'group/app',
        CI_PIPELINE_ID: '12',
        CI_JOB_ID: '345',
        CI_JOB_NAME: 'e2e',
        GITLAB_USER_LOGIN: 'dev1',
        CI_JOB_URL: 'https://gitlab.example/group/app/-/jobs/345',
      }),
    ).toBe(
      'GitLab group/app pipeline 12 job 345 (e2e) by dev1 https://gitlab.example/group/app/-/jobs/345',
    );
  });

  it('names the Tekton TaskRun (and PipelineRun) the Task passes in', () => {
    expect(
      requestedBy({ TEKTON_TASKRUN_NAME: 'run-1-acquire', TEKTON_TASKRUN_NAMESPACE: 'ci' }),
    ).toBe('Tekton TaskRun ci/run-1-acquire');
    expect(
      requestedBy({ TEKTON_TASKRUN_NAME: 'run-1-acquire', TEKTON_PIPELINERUN_NAME: 'run-1' }),
    ).toBe('Tekton TaskRun run-1-acquire of PipelineRun run-1');
  });

  it('names the Jenkins build', () => {
    expect(
      requestedBy({
        JENKINS_URL: 'https://ci.example/',
        JOB_NAME: 'app/main',
        BUILD_NUMBER: '7',
        BUILD_URL: 'https://ci.example/job/app/job/main/7/',
      }),
    ).toBe('Jenkins app/main #7 https://ci.example/job/app/job/main/7/');
  });

  it('names the person at the terminal otherwise', () => {
    expect(requestedBy({ BUILD_URL: 'https://ci.example/7/' })).toBe(
      `${os.userInfo().username}@${os.hostname()} (guestcluster lease)`,
    );
  });
});
