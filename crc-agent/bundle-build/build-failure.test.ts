import { describe, expect, it } from '@jest/globals';
import { parseBuildStepResult } from '../../contracts/bundle-build.js';
import { CancelledError, RetryTimeoutError } from '../errors.js';
import { BuildFailure, resultText, stageReason } from './build-failure.js';
import { GuestScriptError } from './build-guest.js';
import { asFailure } from './run-bundle-build.js';

describe('step results', () => {
  it('name the stage in generic reasons', () => {
    expect(stageReason('seal-check', 'CheckFailed')).toBe('SealCheckFailed');
    expect(stageReason('install-wait', 'TimedOut')).toBe('InstallWaitTimedOut');
    expect(stageReason('zero', 'Failed')).toBe('ZeroAndStopFailed');
  });

  it('fit a long failure message into the 4 KiB termination message, still parseable', () => {
    const text = resultText({
      step: 'seal-check',
      ok: false,
      reason: 'SealCheckFailed',
      message: 'x'.repeat(10_000),
    });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(parseBuildStepResult('seal-check', text)).toMatchObject({
      ok: false,
      reason: 'SealCheckFailed',
    });
  });

  it('map every error to a reason the bundle reports', () => {
    expect(asFailure('day2', new BuildFailure('Day2ClusterNotStable', 'm')).reason).toBe(
      'Day2ClusterNotStable',
    );
    expect(asFailure('seal', new GuestScriptError('os-seal', 1, 'a\nb'))).toMatchObject({
      reason: 'SealGuestCommandFailed',
      message: expect.stringContaining('crc-agent/bundle-build/guest/os-seal.sh'),
    });
    expect(
      asFailure(
        'present',
        new RetryTimeoutError(
          'timed out after 5m waiting for SSH on 10.0.0.1:22 to accept connections',
        ),
      ).reason,
    ).toBe('ReturnToPresentGuestUnreachable');
    expect(asFailure('zero', new CancelledError('SIGTERM')).reason).toBe('ZeroAndStopCancelled');
    expect(asFailure('customize', new Error('boom'))).toMatchObject({
      reason: 'CustomizeFailed',
      message: expect.stringContaining('boom'),
    });
  });
});
