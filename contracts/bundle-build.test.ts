import { describe, expect, it } from '@jest/globals';
import {
  BUILD_ENV,
  BUILD_STEPS,
  BuildJobSpec,
  parseBuildStepResult,
  STEP_GUEST,
  STEP_STAGE,
} from './bundle-build.js';

describe('the bundle-build contract', () => {
  it('gives every agent step its guest and the stage its failures are named after', () => {
    expect(Object.keys(STEP_GUEST).sort()).toEqual([...BUILD_STEPS].sort());
    expect(Object.keys(STEP_STAGE).sort()).toEqual([...BUILD_STEPS].sort());
    for (const stage of Object.values(STEP_STAGE)) expect(stage).toMatch(/^[A-Z][A-Za-z0-9]*$/);
  });

  it('reads back the environment a Job is given', () => {
    const spec: BuildJobSpec = {
      bundleName: 'crc-custom',
      bundleUid: 'uid-1',
      attempt: 'a1',
      step: 'ignition',
      releaseImage: `quay.io/r@sha256:${'a'.repeat(64)}`,
      certificateRotation: 'Enabled',
      clockOffsetSeconds: -86400,
      sshHost: '10.96.0.9',
      vmiUid: 'vmi-1',
      dnsIp: '10.96.0.10',
      isoUrl: '',
      isoSha256: '',
    };
    const env = BuildJobSpec.toEnv(spec);
    expect(Object.keys(env).every((name) => Object.values(BUILD_ENV).includes(name as never))).toBe(
      true,
    );
    const read = BuildJobSpec.fromEnv({ ...env, [BUILD_ENV.sshPort]: '2222' });
    expect(read.spec).toEqual(spec);
    expect(read.sshPort).toBe(2222);
    expect(read.paths.sshKey).toBe('/etc/bundle-build/ssh/id_ecdsa');
    expect(BuildJobSpec.fromEnv({ [BUILD_ENV.step]: 'rm -rf' }).spec.step).toBeUndefined();
  });

  it('parses a step result, and nothing that is not one of the step', () => {
    const ok = JSON.stringify({
      step: 'publish',
      ok: true,
      outputs: { diskSHA256: 'b'.repeat(64), diskVirtualSizeBytes: 1024 },
    });
    expect(parseBuildStepResult('publish', ok)).toEqual({
      step: 'publish',
      ok: true,
      outputs: { diskSHA256: 'b'.repeat(64), diskVirtualSizeBytes: 1024 },
    });
    const failed = JSON.stringify({
      step: 'seal-check',
      ok: false,
      reason: 'SealCheckFailed',
      message: 'kubelet is enabled',
    });
    expect(parseBuildStepResult('seal-check', failed)).toMatchObject({
      ok: false,
      reason: 'SealCheckFailed',
    });
    expect(parseBuildStepResult('seal', failed)).toBeUndefined();
    expect(parseBuildStepResult('seal-check', 'Killed')).toBeUndefined();
    expect(
      parseBuildStepResult(
        'seal-check',
        JSON.stringify({ step: 'seal-check', ok: false, reason: 'not a reason', message: '' }),
      ),
    ).toBeUndefined();
  });
});
