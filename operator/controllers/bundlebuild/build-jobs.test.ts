import { describe, expect, it } from '@jest/globals';
import type { Job, Pod } from '../../kube/workloads.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import { BUILD_CONTAINER, stepDeadlineSeconds, stepOutcome } from './build-jobs.js';

const job = (status: Job['status']): Job => ({
  spec: { backoffLimit: 1, activeDeadlineSeconds: 60, template: { spec: { containers: [] } } },
  status,
});
const pod = (exitCode: number, message: string, finishedAt = '2026-01-01T00:00:00Z'): Pod =>
  ({
    status: {
      containerStatuses: [
        { name: BUILD_CONTAINER, state: { terminated: { exitCode, message, finishedAt } } },
      ],
    },
  }) as unknown as Pod;

describe("a build step's outcome", () => {
  it('records the outputs of a succeeded step as strings', () => {
    const message = JSON.stringify({
      step: 'publish',
      ok: true,
      outputs: { diskSHA256: 'a', diskVirtualSizeBytes: 5 },
    });
    expect(stepOutcome('publish', job({ succeeded: 1 }), [pod(0, message)])).toEqual({
      ok: true,
      outputs: { diskSHA256: 'a', diskVirtualSizeBytes: '5' },
    });
  });

  it("takes the agent's reason from the last failed pod, else reports its text", () => {
    const failed = job({
      failed: 2,
      conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
    });
    const agent = JSON.stringify({
      step: 'seal-check',
      ok: false,
      reason: 'SealCheckFailed',
      message: 'kubelet enabled',
    });
    expect(
      stepOutcome('seal-check', failed, [
        pod(1, 'old', '2026-01-01T00:00:00Z'),
        pod(1, agent, '2026-01-01T00:01:00Z'),
      ]),
    ).toEqual({
      ok: false,
      reason: 'SealCheckFailed',
      message: 'kubelet enabled',
    });
    expect(stepOutcome('seal-check', failed, [pod(137, '')])).toEqual({
      ok: false,
      reason: undefined,
      message: 'the container exited with code 137',
    });
  });

  it('says a Job past its deadline timed out, and a running one runs', () => {
    const late = job({
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }],
    });
    expect(stepOutcome('install-wait', late, [])).toMatchObject({
      ok: false,
      reason: 'StepTimedOut',
    });
    expect(stepOutcome('install-wait', job({ active: 1 }), [])).toEqual({ running: true });
  });
});

describe("a build step's deadline", () => {
  it('is the install wait deadline for install-wait, the step deadline for the others, in whole seconds', () => {
    const timings = DEFAULT_TIMINGS.build;
    expect(stepDeadlineSeconds('install-wait', timings)).toBe(7200);
    expect(stepDeadlineSeconds('resolve', timings)).toBe(2700);
    expect(stepDeadlineSeconds('dns-check', { ...timings, stepDeadlineMs: 1500 })).toBe(2);
    expect(stepDeadlineSeconds('seal', { ...timings, stepDeadlineMs: 1 })).toBe(1);
  });
});
