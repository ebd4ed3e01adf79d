import { describe, expect, it } from '@jest/globals';
import {
  BUILD_ENV,
  BUILD_STAGES,
  BUILD_STEPS,
  BuildJobSpec,
  parseBuildStepResult,
  stageOfStep,
  STEP_GUEST,
} from './bundle-build.js';

describe('the bundle-build contract', () => {
  it('lists the phases P0–P13 in order, then validation, one condition each', () => {
    expect(BUILD_STAGES.map((stage) => stage.phase)).toEqual([
      ...Array.from({ length: 14 }, (_, i) => `P${i}`),
      'V',
    ]);
    const conditions = BUILD_STAGES.map((stage) => stage.condition);
    expect(new Set(conditions).size).toBe(conditions.length);
    expect(conditions).not.toContain('Ready');
  });

  it('runs every agent step in some stage, in the order of BUILD_STEPS', () => {
    const run = BUILD_STAGES.flatMap((stage) => [...stage.steps]);
    expect([...new Set(run)]).toEqual([...BUILD_STEPS]);
    expect(stageOfStep('poweroff').phase).toBe('P7');
    expect(stageOfStep('seal-check').phase).toBe('P10');
    expect(Object.keys(STEP_GUEST).sort()).toEqual([...BUILD_STEPS].sort());
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
