import { describe, expect, it } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import type { ClusterLease } from '../api/resources.js';
import { leaseObject } from './create-lease.js';
import type { GitHubRun } from './github-run.js';
import { stepRun } from './github-run.js';
import { belongsTo, ownerConflict } from './lease-owner.js';

const ENV = {
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_RUN_ID: '42',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'e2e',
  GITHUB_ACTION: '__guestcluster_lease',
  RUNNER_NAME: 'GitHub Actions 11',
};
/** What the runner makes of the inputs' defaults for the first leg of a matrix on github.com. */
const INPUTS: Record<string, string> = {
  'job-check-run-id': '51725241954',
  'job-index': '0',
  matrix: '{\n  "os": "ubuntu-24.04"\n}',
};

function run(env: Record<string, string> = {}, inputs: Record<string, string> = {}): GitHubRun {
  const given = { ...INPUTS, ...inputs };
  return stepRun((name) => given[name] ?? '', { ...ENV, ...env });
}

function leaseOf(by: GitHubRun): ClusterLease {
  return leaseObject({
    name: 'shared',
    namespace: 'ci',
    pool: 'p',
    ttl: '6h',
    requestedBy: 'x',
    run: by,
  });
}

describe('belongsTo', () => {
  it('knows the lease of its own job: a retried step, a later step, its post', () => {
    const lease = leaseOf(run());
    expect(belongsTo(lease, run())).toBe(true);
    expect(belongsTo(lease, run({ GITHUB_ACTION: '__guestcluster_lease_2' }))).toBe(true);
  });

  /** GitHub Enterprise Server gives no job id. */
  const NO_JOB_ID = { 'job-check-run-id': '' };
  it.each([
    ['another leg (its job id)', {}, {}, { 'job-check-run-id': '51725241955' }],
    [
      'another leg on another runner, without job ids',
      NO_JOB_ID,
      { RUNNER_NAME: 'GitHub Actions 12' },
      NO_JOB_ID,
    ],
    [
      'the leg after it on the same runner, without job ids',
      NO_JOB_ID,
      {},
      { ...NO_JOB_ID, 'job-index': '1' },
    ],
    ['another attempt', {}, { GITHUB_RUN_ATTEMPT: '2' }, {}],
    ['another job', {}, { GITHUB_JOB: 'unit' }, {}],
    ['another run', {}, { GITHUB_RUN_ID: '43' }, {}],
    ['another repository', {}, { GITHUB_REPOSITORY: 'octo-org/other' }, {}],
  ])('refuses the lease of %s', (_, made, env, inputs) => {
    expect(belongsTo(leaseOf(run({}, made)), run(env, inputs))).toBe(false);
  });

  it('refuses every lease outside GitHub Actions, and one that no Action made', () => {
    expect(
      belongsTo(
        leaseOf(run()),
        stepRun(() => '', {}),
      ),
    ).toBe(false);
    const unmarked = { ...leaseOf(run()), metadata: { name: 'shared', namespace: 'ci' } };
    expect(belongsTo(unmarked, run())).toBe(false);
  });
});

describe('ownerConflict', () => {
  it('names the job and the leg that hold the lease, and this one', () => {
    const other = run(
      { RUNNER_NAME: 'GitHub Actions 12' },
      { 'job-check-run-id': '51725241955', 'job-index': '1', matrix: '{"os":"ubuntu-22.04"}' },
    );
    expect(ownerConflict(leaseOf(run()), other)).toBe(
      'ClusterLease ci/shared already exists and belongs to another job: run 42 attempt 1, job "e2e", matrix leg 0 (os: ubuntu-24.04), job id 51725241954, runner "GitHub Actions 11"; this step runs in run 42 attempt 1, job "e2e", matrix leg 1 (os: ubuntu-22.04), job id 51725241955, runner "GitHub Actions 12". Give each job and matrix leg a "lease-name" of its own (for example one that ends in ${{ strategy.job-index }}), or leave it unset',
    );
  });

  it('says who asked for a lease that no Action made, and keeps what a lease says to one line', () => {
    const lease = leaseOf(run());
    expect(
      ownerConflict({ ...lease, metadata: { name: 'shared', namespace: 'ci' } }, run()),
    ).toContain('belongs to another job: requested by "x"; this step runs in run 42');
    lease.metadata!.annotations![RUN_ANNOTATIONS.job] = 'e2e\n::error::forged';
    expect(ownerConflict(lease, run())).toContain('job "e2e ::error::forged"');
  });
});
