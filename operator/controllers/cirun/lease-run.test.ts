import { describe, expect, it } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { leaseRun } from './lease-run.js';

const leaseWith = (annotations: Record<string, string>): ClusterLease => ({
  apiVersion: LEASES.apiVersion,
  kind: LEASES.kind,
  metadata: { name: 'l', namespace: 'ci', annotations },
  spec: { poolRef: { name: 'p' } },
});
const valid = {
  [RUN_ANNOTATIONS.repository]: 'acme/app',
  [RUN_ANNOTATIONS.runId]: '101',
  [RUN_ANNOTATIONS.runAttempt]: '2',
  [RUN_ANNOTATIONS.job]: 'e2e',
};

describe("a lease's run, from its annotations", () => {
  it('reads the repository, run, attempt and optional job id', () => {
    expect(leaseRun(leaseWith(valid))).toEqual({
      owner: 'acme',
      repo: 'app',
      runId: 101,
      attempt: 2,
      job: 'e2e',
    });
    expect(leaseRun(leaseWith({ ...valid, [RUN_ANNOTATIONS.jobId]: '7' }))).toMatchObject({
      jobId: 7,
    });
    expect(leaseRun(leaseWith({}))).toBeUndefined();
  });

  it('refuses anything but a repository name and numbers, naming the annotation', () => {
    for (const [key, value] of [
      [RUN_ANNOTATIONS.repository, 'acme/app/../../orgs/x'],
      [RUN_ANNOTATIONS.repository, 'acme'],
      [RUN_ANNOTATIONS.runId, '101?per_page=1'],
      [RUN_ANNOTATIONS.runAttempt, '0'],
      [RUN_ANNOTATIONS.jobId, '-1'],
    ] as const) {
      const run = leaseRun(leaseWith({ ...valid, [key]: value }));
      expect(run).toEqual({ invalid: expect.stringContaining(`annotation ${key} must be`) });
    }
  });
});
