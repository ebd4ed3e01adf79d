import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config.js';
import { DEFAULT_BUILD_TIMINGS, loadBuildConfig } from './build-config.js';

const base = {
  BUILD_BUNDLE_NAME: 'crc-custom',
  BUILD_BUNDLE_UID: 'uid-1',
  BUILD_ATTEMPT: 'a1',
  BUILD_SSH_HOST: '10.96.0.9',
  BUILD_VMI_UID: 'vmi-1',
};

describe('loadBuildConfig', () => {
  it('reads the Job environment, with the mounts as default paths and port 22', () => {
    const config = loadBuildConfig('day2', { ...base, BUILD_STEP: 'day2' });
    expect(config).toMatchObject({
      step: 'day2',
      bundleName: 'crc-custom',
      sshHost: '10.96.0.9',
      sshPort: 22,
      sshUser: 'core',
      certificateRotation: 'Enabled',
      clockOffsetSeconds: 0,
      paths: { sshKey: '/etc/bundle-build/ssh/id_ecdsa', work: '/work' },
      timings: DEFAULT_BUILD_TIMINGS,
    });
  });

  it('names what is missing: the build identity, and the guest of a guest step', () => {
    expect(() => loadBuildConfig('day2', { BUILD_BUNDLE_NAME: 'x' })).toThrow(
      'missing required configuration: BUILD_BUNDLE_UID, BUILD_ATTEMPT must be set',
    );
    expect(() => loadBuildConfig('seal', { ...base, BUILD_SSH_HOST: '' })).toThrow(
      'missing required configuration for step seal: BUILD_SSH_HOST must be set',
    );
    expect(() => loadBuildConfig('seal-check', base)).toThrow('BUILD_DNS_IP must be set');
    expect(() => loadBuildConfig('publish', { ...base, BUILD_SSH_HOST: '' })).not.toThrow();
  });

  it('refuses a Job whose BUILD_STEP is not the step it runs, and malformed values', () => {
    expect(() => loadBuildConfig('seal', { ...base, BUILD_STEP: 'zero' })).toThrow(ConfigError);
    expect(() =>
      loadBuildConfig('day2', { ...base, BUILD_CERTIFICATE_ROTATION: 'Sometimes' }),
    ).toThrow('BUILD_CERTIFICATE_ROTATION="Sometimes" is not Enabled or Disabled');
    expect(() => loadBuildConfig('day2', { ...base, BUILD_CLOCK_OFFSET_SECONDS: '1.5' })).toThrow(
      'whole number',
    );
    expect(() => loadBuildConfig('day2', { ...base, CRC_AGENT_RETRY_INTERVAL: 'soon' })).toThrow(
      'CRC_AGENT_RETRY_INTERVAL="soon"',
    );
  });

  it('takes the timing overrides of a local run', () => {
    const config = loadBuildConfig('day2', {
      ...base,
      BUILD_INSTALL_TIMEOUT: '2m',
      BUILD_SSH_PORT: '2222',
    });
    expect(config.timings.installTimeoutMs).toBe(120_000);
    expect(config.sshPort).toBe(2222);
  });
});
