import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../kube/workloads.js';
import { readPrepFailure } from './prep-failure.js';

function failedPod(finishedAt: string, message: string, exitCode = 1, reason = 'Error'): Pod {
  return {
    metadata: { name: `prep-${finishedAt}` },
    spec: { containers: [] },
    status: {
      phase: 'Failed',
      containerStatuses: [
        {
          name: 'bundle-prep',
          image: 'agent',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode, reason, message, finishedAt } },
        },
      ],
    },
  };
}

describe('readPrepFailure', () => {
  it('takes the step and message of the last failed pod', () => {
    const pods = [
      failedPod(
        '2026-01-01T00:00:02Z',
        '{"step":"Verify","message":"checksum mismatch for a.crcbundle"}',
      ),
      failedPod('2026-01-01T00:00:01Z', '{"step":"Download","message":"GET x answered 404"}'),
    ];
    expect(readPrepFailure(pods)).toEqual({
      step: 'Verify',
      message: 'checksum mismatch for a.crcbundle',
    });
  });

  it('reports other termination messages (a log tail) as they are', () => {
    expect(readPrepFailure([failedPod('t', 'Segmentation fault\n')])).toEqual({
      step: undefined,
      message: 'Segmentation fault',
    });
    expect(readPrepFailure([failedPod('t', '{"step":"no such step!","message":"x"}')]).step).toBe(
      undefined,
    );
  });

  it('names the exit code when there is no message, and says when no pod failed', () => {
    expect(readPrepFailure([failedPod('t', '', 137, 'OOMKilled')])).toEqual({
      step: undefined,
      message: 'the container exited with code 137 (OOMKilled)',
    });
    expect(readPrepFailure([])).toEqual({
      step: undefined,
      message: 'no failed pod of the Job was found',
    });
  });
});
