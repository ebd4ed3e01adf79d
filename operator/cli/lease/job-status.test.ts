import { describe, expect, it } from '@jest/globals';
import { jobStatusFlag } from './job-status.js';

describe('--job-status', () => {
  it("takes the Action's words and GitLab's CI_JOB_STATUS", () => {
    expect(['success', 'failure', 'failed', 'cancelled', 'canceled'].map(jobStatusFlag)).toEqual([
      'success',
      'failure',
      'failure',
      'cancelled',
      'cancelled',
    ]);
  });

  it('is a job that did not fail when unset or empty, and refuses anything else (exit 2)', () => {
    expect(jobStatusFlag(undefined)).toBe('success');
    expect(jobStatusFlag('')).toBe('success');
    expect(() => jobStatusFlag('running')).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining('--job-status is "running"'),
      }),
    );
  });
});
