import { describe, expect, test } from '@jest/globals';
import { AGENT_PATHS } from '../contracts/agent-job.js';
import { ConfigError, DEFAULT_TIMINGS, loadAgentConfig, parseArgs } from './config.js';

const REQUIRED = {
  INSTANCE_NAME: 'crc-1',
  INSTANCE_NAMESPACE: 'ci',
  CRC_SSH_HOST: '10.128.0.7',
  CRC_VMI_UID: 'uid-1',
};

describe('agent configuration', () => {
  test('applies the defaults of the spec', () => {
    const config = loadAgentConfig(REQUIRED);
    expect(config).toMatchObject({
      sshPort: 22,
      sshUser: 'core',
      sshKeyPath: AGENT_PATHS.sshKey,
      pullSecretPath: AGENT_PATHS.pullSecret,
      identityPath: AGENT_PATHS.identity,
      instanceUid: '',
      timings: DEFAULT_TIMINGS,
    });
  });

  test('an empty value counts as unset where a default exists', () => {
    expect(loadAgentConfig({ ...REQUIRED, CRC_SSH_USER: '' }).sshUser).toBe('core');
  });

  test('names every missing required variable', () => {
    expect(() => loadAgentConfig({ INSTANCE_NAME: 'x', CRC_SSH_HOST: ' ' })).toThrow(
      'missing required configuration: INSTANCE_NAMESPACE, CRC_SSH_HOST, CRC_VMI_UID must be set',
    );
  });

  test('flags override the environment, Go style', () => {
    const { mode, overrides } = parseArgs(['-instance-name', 'crc-2', '--vmi-uid=uid-2']);
    expect(mode).toBe('agent');
    const config = loadAgentConfig(REQUIRED, overrides);
    expect([config.instanceName, config.vmiUid]).toEqual(['crc-2', 'uid-2']);
  });

  test('rejects unknown flags and a flag without value', () => {
    expect(() => parseArgs(['--bogus'])).toThrow(ConfigError);
    expect(() => parseArgs(['--namespace'])).toThrow('flag --namespace needs a value');
  });

  test('reads the bundle-prep mode word', () => {
    expect(parseArgs(['bundle-prep']).mode).toBe('bundle-prep');
  });

  test('validates the port and the timing overrides, naming the variable', () => {
    expect(() => loadAgentConfig({ ...REQUIRED, CRC_SSH_PORT: '70000' })).toThrow(
      'CRC_SSH_PORT="70000"',
    );
    expect(() => loadAgentConfig({ ...REQUIRED, CRC_AGENT_SSH_WAIT_TIMEOUT: '5 minutes' })).toThrow(
      'CRC_AGENT_SSH_WAIT_TIMEOUT="5 minutes"',
    );
    const config = loadAgentConfig({
      ...REQUIRED,
      CRC_SSH_PORT: '2222',
      CRC_AGENT_RETRY_INTERVAL: '250ms',
    });
    expect([config.sshPort, config.timings.retryIntervalMs]).toEqual([2222, 250]);
  });
});
