import { describe, expect, it } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import {
  defaultLeaseName,
  gitHubRun,
  jobIdInput,
  jobIndexInput,
  matrixInput,
  runAnnotations,
  stepRun,
} from './github-run.js';

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

  it.each([
    ['the next leg on the same runner (its matrix index)', { 'job-index': '1' }],
    ['another execution of the job (its id)', { 'job-check-run-id': '51725241955' }],
  ])('differs for %s', (_, inputs) => {
    const given: Record<string, string> = { 'job-check-run-id': '51725241954', 'job-index': '0' };
    const name = (more: Record<string, string>): string | undefined =>
      defaultLeaseName(stepRun((input) => ({ ...given, ...more })[input] ?? '', ENV));
    expect(name(inputs)).not.toBe(name({}));
    expect(name({})).toBe(name({}));
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

describe('the matrix leg', () => {
  it("is read from the runner's strategy.job-index and toJSON(matrix)", () => {
    expect(jobIndexInput(' 3 ')).toBe('3');
    for (const unusable of ['', '${{ strategy.job-index }}', '-1', '1.5'])
      expect(jobIndexInput(unusable)).toBe('');
    expect(matrixInput('{\n  "os": "ubuntu-24.04",\n  "ocp": 4.16,\n  "extra": {"a": 1}\n}')).toBe(
      'os: ubuntu-24.04, ocp: 4.16, extra: {"a":1}',
    );
    for (const none of ['null', '', '${{ toJSON(matrix) }}', '[1]', '"x"'])
      expect(matrixInput(none)).toBe('');
    // One line, and short: it is written on the lease and shown in other jobs' logs.
    expect(matrixInput(JSON.stringify({ os: 'a\nb', long: 'x'.repeat(500) }))).toMatch(
      /^os: a b, long: x+…$/,
    );
    expect(matrixInput(JSON.stringify({ long: 'x'.repeat(500) }))).toHaveLength(200);
  });

  it('is written on the lease with the runner, and left out outside a matrix', () => {
    const given: Record<string, string> = { 'job-index': '1', matrix: '{"os":"ubuntu-22.04"}' };
    expect(runAnnotations(stepRun((name) => given[name] ?? '', ENV))).toMatchObject({
      [RUN_ANNOTATIONS.runner]: 'runner-1',
      [RUN_ANNOTATIONS.jobIndex]: '1',
      [RUN_ANNOTATIONS.matrix]: 'os: ubuntu-22.04',
    });
    expect(
      runAnnotations(stepRun((name) => (name === 'matrix' ? 'null' : ''), ENV)),
    ).not.toHaveProperty(RUN_ANNOTATIONS.matrix);
  });
});
