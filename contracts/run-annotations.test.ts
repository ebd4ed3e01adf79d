import { describe, expect, it } from '@jest/globals';
import { leaseObject } from '../client/lease/create-lease.js';
import { gitHubRun, runAnnotations } from '../client/lease/github-run.js';
import { ANNOTATION_KEEP_AFTER_JOB, RUN_ANNOTATIONS } from './run-annotations.js';

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
        RUNNER_NAME: 'GitHub Actions 7',
      }),
    );
    expect(written).toEqual({
      [RUN_ANNOTATIONS.repository]: 'acme/app',
      [RUN_ANNOTATIONS.workflow]: 'CI',
      [RUN_ANNOTATIONS.runId]: '101',
      [RUN_ANNOTATIONS.runAttempt]: '2',
      [RUN_ANNOTATIONS.job]: 'e2e',
      [RUN_ANNOTATIONS.runUrl]: 'https://github.com/acme/app/actions/runs/101/attempts/2',
      [RUN_ANNOTATIONS.runner]: 'GitHub Actions 7',
    });
  });

  it('mark a lease the Action keeps after its job (release: false) for the operator', () => {
    const request = {
      name: 'gh-101-1-abcd',
      namespace: 'ci',
      pool: 'p',
      ttl: '6h',
      requestedBy: 'x',
      run: gitHubRun({ GITHUB_REPOSITORY: 'acme/app', GITHUB_RUN_ID: '101' }),
    };
    const annotations = (keepAfterJob: boolean): Record<string, string> | undefined =>
      leaseObject({ ...request, keepAfterJob }).metadata?.annotations;
    expect(annotations(true)?.[ANNOTATION_KEEP_AFTER_JOB]).toBe('true');
    expect(annotations(false)).not.toHaveProperty([ANNOTATION_KEEP_AFTER_JOB]);
    expect(annotations(false)?.[RUN_ANNOTATIONS.runId]).toBe('101');
  });
});
