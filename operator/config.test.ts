import { describe, expect, it } from '@jest/globals';
import type { OperatorFlags } from './config.js';
import { ConfigError, loadOperatorConfig, SERVICE_ACCOUNT_NAMESPACE_FILE } from './config.js';

const noPodFile = (): string => {
  throw new Error('ENOENT');
};

describe('loadOperatorConfig', () => {
  it('takes OPERATOR_NAMESPACE, then the pod namespace file, then "default"', () => {
    expect(loadOperatorConfig({}, { OPERATOR_NAMESPACE: 'ops' }, noPodFile).operatorNamespace).toBe(
      'ops',
    );
    const podFile = (path: string): string =>
      path === SERVICE_ACCOUNT_NAMESPACE_FILE ? 'from-pod\n' : '';
    expect(loadOperatorConfig({}, {}, podFile).operatorNamespace).toBe('from-pod');
    expect(loadOperatorConfig({}, {}, noPodFile).operatorNamespace).toBe('default');
  });

  it('applies the defaults', () => {
    const config = loadOperatorConfig({}, {}, noPodFile);
    expect(config).toMatchObject({
      crcAgentImage: 'opdev.io/guestcluster-operator-crc-agent:latest',
      crcBundleMirrorUrl:
        'https://mirror.openshift.com/pub/openshift-v4/clients/crc/bundles/openshift',
      metricsAddress: { host: '0.0.0.0', port: 8080 },
      probeAddress: { host: '0.0.0.0', port: 8081 },
      leaderElection: {
        enabled: false,
        leaseName: '28494864.opdev.io',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2000,
      },
      logLevel: 'info',
      workersPerController: 1,
      controllers: ['clusterpool', 'clusterlease', 'clusterinstance', 'crcbundle'],
    });
  });

  it('takes the bundle mirror from CRC_BUNDLE_MIRROR_URL, without a trailing slash', () => {
    const env = { CRC_BUNDLE_MIRROR_URL: 'http://127.0.0.1:8080/crc/' };
    expect(loadOperatorConfig({}, env, noPodFile).crcBundleMirrorUrl).toBe(
      'http://127.0.0.1:8080/crc',
    );
  });

  it('parses addresses and disables with 0', () => {
    const config = loadOperatorConfig(
      { metricsBindAddress: '127.0.0.1:9090', healthProbeBindAddress: '0' },
      {},
      noPodFile,
    );
    expect(config.metricsAddress).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(config.probeAddress).toBeUndefined();
  });

  it.each<[string, OperatorFlags, NodeJS.ProcessEnv, string]>([
    ['workers 0', { workers: '0' }, {}, '--workers must be an integer from 1 to 64 (got "0")'],
    [
      'watch namespace not a name',
      { watchNamespace: 'Team_A' },
      {},
      '--watch-namespace must be a namespace name (got "Team_A")',
    ],
    [
      'workers not a number',
      { workers: 'many' },
      {},
      '--workers must be an integer from 1 to 64 (got "many")',
    ],
    [
      'bad address',
      { metricsBindAddress: 'localhost' },
      {},
      '--metrics-bind-address must be host:port, :port or 0 to disable (got "localhost")',
    ],
    [
      'port out of range',
      { healthProbeBindAddress: ':70000' },
      {},
      '--health-probe-bind-address must be host:port',
    ],
    [
      'log level',
      { logLevel: 'loud' },
      {},
      '--log-level must be one of debug, info, warn, error (got "loud")',
    ],
    [
      'bad duration',
      { leaderElectLeaseDuration: '15' },
      {},
      '--leader-elect-lease-duration must be a duration',
    ],
    [
      'renew after lease',
      { leaderElectLeaseDuration: '5s', leaderElectRenewDeadline: '10s' },
      {},
      '--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline',
    ],
    [
      'namespace',
      {},
      { OPERATOR_NAMESPACE: 'Not_A_Namespace' },
      'OPERATOR_NAMESPACE must be a namespace name (got "Not_A_Namespace")',
    ],
    [
      'image',
      {},
      { CRC_AGENT_IMAGE: 'has space' },
      'CRC_AGENT_IMAGE must be an image reference (got "has space")',
    ],
    [
      'controllers',
      { controllers: 'clusterpool,clusterinstances' },
      {},
      '--controllers must list some of clusterpool, clusterlease, clusterinstance, crcbundle (got "clusterpool,clusterinstances")',
    ],
    [
      'mirror',
      {},
      { CRC_BUNDLE_MIRROR_URL: 'ftp://mirror.example/crc' },
      'CRC_BUNDLE_MIRROR_URL must be an http(s) URL (got "ftp://mirror.example/crc")',
    ],
    [
      'CRC versions',
      { allowedCrcVersions: '4.16.0,latest' },
      {},
      '--allowed-crc-versions (ALLOWED_CRC_VERSIONS) must list CRC versions such as 2.40.0 or 4.16.0, comma-separated (got "latest")',
    ],
    [
      'preparing bundles',
      {},
      { MAX_PREPARING_BUNDLES: '0' },
      '--max-preparing-bundles (MAX_PREPARING_BUNDLES) must be an integer from 1 to 100 (got "0")',
    ],
  ])('refuses %s, naming the setting', (_name, flags, env, message) => {
    expect(() => loadOperatorConfig(flags, env, noPodFile)).toThrow(ConfigError);
    expect(() => loadOperatorConfig(flags, env, noPodFile)).toThrow(message);
  });

  it('bounds CRC bundles as the admin says: flag, else environment, else any version and 2', () => {
    expect(loadOperatorConfig({}, {}, noPodFile).crc).toEqual({
      allowedVersions: undefined,
      maxPreparing: 2,
    });
    const env = { ALLOWED_CRC_VERSIONS: '4.16.0, 4.17.1', MAX_PREPARING_BUNDLES: '3' };
    expect(loadOperatorConfig({}, env, noPodFile).crc).toEqual({
      allowedVersions: ['4.16.0', '4.17.1'],
      maxPreparing: 3,
    });
    const flags = { allowedCrcVersions: '4.18.0', maxPreparingBundles: '1' };
    expect(loadOperatorConfig(flags, env, noPodFile).crc).toEqual({
      allowedVersions: ['4.18.0'],
      maxPreparing: 1,
    });
    // The Deployment's empty variable means any version.
    expect(
      loadOperatorConfig({}, { ALLOWED_CRC_VERSIONS: '' }, noPodFile).crc.allowedVersions,
    ).toBe(undefined);
  });

  it('reports every problem at once', () => {
    const error = (() => {
      try {
        loadOperatorConfig({ workers: '0', logLevel: 'x' }, {}, noPodFile);
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.problems).toHaveLength(2);
  });
});
