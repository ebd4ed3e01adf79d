import { describe, expect, it } from '@jest/globals';
import { gitHubRun, runAnnotations } from '../action/github-run.js';
import { RUN_ANNOTATIONS } from './run-annotations.js';

describe('run annotations', () => {
  it('are the keys the Action writes and the operator reads', () => {
    const written = runAnnotations(
      gitHubRun({
        GITHUB_REPOSITORY: 'acme/app',
        GITHUB_WORKFLOW: 'CI',
        GITHUB_RUN_ID: '101',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_JOB: 'e2e',
        GITHUB_SERVER_URL: 'https://github.com',
      }),
    );
    expect(written).toEqual({
      [RUN_ANNOTATIONS.repository]: 'acme/app',
      [RUN_ANNOTATIONS.workflow]: 'CI',
      [RUN_ANNOTATIONS.runId]: '101',
      [RUN_ANNOTATIONS.runAttempt]: '2',
      [RUN_ANNOTATIONS.job]: 'e2e',
      [RUN_ANNOTATIONS.runUrl]: 'https://github.com/acme/app/actions/runs/101/attempts/2',
    });
  });
});
