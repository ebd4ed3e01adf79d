import { describe, expect, it } from '@jest/globals';
import type { OperatorFlags } from './config.js';
import {
  ConfigError,
  loadOperatorConfig,
  runtimeOptions,
  SERVICE_ACCOUNT_NAMESPACE_FILE,
} from './config.js';
import { DEFAULT_TIMINGS } from './timings.js';

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
      metricsAddress: { host: '0.0.0.0', port: 8443 },
      secureMetrics: { hostname: 'guestcluster-operator-metrics.default.svc' },
      probeAddress: { host: '0.0.0.0', port: 8081 },
      leaderElection: {
        enabled: false,
        leaseName: '28494864.opdev.io',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2000,
      },
      logLevel: 'info',
      workers: {
        clusterpool: 2,
        clusterlease: 4,
        clusterinstance: 8,
        guesthealth: 2,
        crcbundle: 1,
        cirun: 1,
        versionstream: 1,
        admissionpolicy: 1,
      },
      controllers: [
        'clusterpool',
        'clusterlease',
        'clusterinstance',
        'guesthealth',
        'crcbundle',
        'cirun',
        'versionstream',
        'admissionpolicy',
        'ciaccesspolicy',
      ],
      versionStreams: { updateServiceUrl: 'https://api.openshift.com', intervalMs: 300_000 },
    });
  });

  it('runs the token exchange only when given an address, limited per subject and trusting the CA file', () => {
    expect(loadOperatorConfig({}, {}, noPodFile).tokenExchange).toBeUndefined();
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const config = loadOperatorConfig(
      { tokenExchangeBindAddress: ':9443', tokenExchangeIssuerCaFile: '/ca.pem' },
      { OPERATOR_NAMESPACE: 'ops', TOKEN_EXCHANGE_PER_MINUTE: '12' },
      (file) => (file === '/ca.pem' ? ca : ''),
    );
    expect(config.tokenExchange).toEqual({
      address: { host: '0.0.0.0', port: 9443 },
      certDir: undefined,
      hostname: 'guestcluster-operator-token-exchange.ops.svc',
      issuerCaCertificates: ca,
      limits: { burst: 5, perMinute: 12 },
    });
    expect(() =>
      loadOperatorConfig(
        { tokenExchangeBindAddress: ':9443', tokenExchangeBurst: '0' },
        {},
        noPodFile,
      ),
    ).toThrow(
      '--token-exchange-burst (TOKEN_EXCHANGE_BURST) must be an integer from 1 to 1000 (got "0")',
    );
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

  it('serves metrics over plain HTTP only when --metrics-secure=false, on :8080 unless told', () => {
    const plain = loadOperatorConfig({ metricsSecure: 'false' }, {}, noPodFile);
    expect(plain.secureMetrics).toBeUndefined();
    expect(plain.metricsAddress).toEqual({ host: '0.0.0.0', port: 8080 });
    const chosen = loadOperatorConfig(
      { metricsSecure: 'false', metricsBindAddress: '127.0.0.1:9000' },
      {},
      noPodFile,
    );
    expect(chosen.metricsAddress).toEqual({ host: '127.0.0.1', port: 9000 });
    const mounted = loadOperatorConfig(
      { metricsCertPath: '/etc/certs' },
      { OPERATOR_NAMESPACE: 'ops' },
      noPodFile,
    );
    expect(mounted.secureMetrics).toEqual({
      certDir: '/etc/certs',
      hostname: 'guestcluster-operator-metrics.ops.svc',
    });
    expect(() => loadOperatorConfig({ metricsSecure: 'no' }, {}, noPodFile)).toThrow(
      '--metrics-secure must be true or false (got "no")',
    );
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
      '--controllers must list some of clusterpool, clusterlease, clusterinstance, guesthealth, crcbundle, cirun, versionstream, admissionpolicy, ciaccesspolicy (got "clusterpool,clusterinstances")',
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
    [
      'building bundles',
      { maxBuildingBundles: 'two' },
      {},
      '--max-building-bundles (MAX_BUILDING_BUNDLES) must be an integer from 1 to 100 (got "two")',
    ],
    [
      'a timing that is not one',
      { timings: 'lease.waitingResinc=1m' },
      {},
      '--timings (OPERATOR_TIMINGS): unknown key "lease.waitingResinc" (known: lease.waitingResync, lease.namespaceRecheck, lease.claimConflictRetry, lease.notReadyGrace, lease.expiryWarning, lease.guestHealthMaxAge, pool.disabledRecheck, pool.scaleDownIdle, pool.replaceFailedBase, pool.replaceFailedMax, pool.unhealthySpareGrace, instance.recheck, instance.readyRecheck, instance.handoffGrace, instance.endpointRecheck, instance.platformRecheck, instance.agentStartDeadline, instance.dataVolumeStallDeadline, instance.guestHealthRecheck, instance.teardownResync, instance.cleanupTimeout, build.stepDeadline, build.installDeadline)',
    ],
    [
      'a timing without a unit',
      {},
      { OPERATOR_TIMINGS: 'pool.scaleDownIdle=120' },
      '--timings (OPERATOR_TIMINGS): pool.scaleDownIdle must be a duration from 1ms to 24h such as 500ms, 20s, 5m or 1h (got "120")',
    ],
    [
      'an instance timing beyond a day',
      {},
      { OPERATOR_TIMINGS: 'instance.cleanupTimeout=25h' },
      '--timings (OPERATOR_TIMINGS): instance.cleanupTimeout must be a duration from 1ms to 24h such as 500ms, 20s, 5m or 1h (got "25h")',
    ],
    [
      'a timing of zero',
      { timings: 'lease.claimConflictRetry=0ms' },
      {},
      'lease.claimConflictRetry must be a duration from 1ms to 24h',
    ],
    [
      'a timing given twice',
      { timings: 'lease.notReadyGrace=1m, lease.notReadyGrace=2m' },
      {},
      '--timings (OPERATOR_TIMINGS): lease.notReadyGrace is given twice',
    ],
    [
      'a backoff whose maximum is below its start',
      { timings: 'pool.replaceFailedBase=20m' },
      {},
      'pool.replaceFailedMax (900000 ms) must not be below pool.replaceFailedBase (1200000 ms)',
    ],
  ])('refuses %s, naming the setting', (_name, flags, env, message) => {
    expect(() => loadOperatorConfig(flags, env, noPodFile)).toThrow(ConfigError);
    expect(() => loadOperatorConfig(flags, env, noPodFile)).toThrow(message);
  });

  it('bounds CRC bundles as the admin says: flag, else environment, else any version, 2 downloads and 1 build', () => {
    expect(loadOperatorConfig({}, {}, noPodFile).crc).toEqual({
      allowedVersions: undefined,
      maxPreparing: 2,
      maxBuilding: 1,
    });
    const env = {
      ALLOWED_CRC_VERSIONS: '4.16.0, 4.17.1',
      MAX_PREPARING_BUNDLES: '3',
      MAX_BUILDING_BUNDLES: '2',
    };
    expect(loadOperatorConfig({}, env, noPodFile).crc).toEqual({
      allowedVersions: ['4.16.0', '4.17.1'],
      maxPreparing: 3,
      maxBuilding: 2,
    });
    const flags = {
      allowedCrcVersions: '4.18.0',
      maxPreparingBundles: '1',
      maxBuildingBundles: '4',
    };
    expect(loadOperatorConfig(flags, env, noPodFile).crc).toEqual({
      allowedVersions: ['4.18.0'],
      maxPreparing: 1,
      maxBuilding: 4,
    });
    // The Deployment's empty variable means any version.
    expect(
      loadOperatorConfig({}, { ALLOWED_CRC_VERSIONS: '' }, noPodFile).crc.allowedVersions,
    ).toBe(undefined);
  });

  it('has the lease, pool and instance waits of before, unless --timings or OPERATOR_TIMINGS says otherwise', () => {
    expect(loadOperatorConfig({}, {}, noPodFile).timings).toEqual({
      lease: {
        waitingResyncMs: 300_000,
        namespaceRecheckMs: 10_000,
        claimConflictRetryMs: 50,
        notReadyGraceMs: 180_000,
        expiryWarningMs: 300_000,
        guestHealthMaxAgeMs: 180_000,
      },
      pool: {
        disabledRecheckMs: 20_000,
        scaleDownIdleMs: 120_000,
        replaceFailedBaseMs: 30_000,
        replaceFailedMaxMs: 900_000,
        unhealthySpareGraceMs: 300_000,
      },
      instance: {
        recheckMs: 20_000,
        readyRecheckMs: 60_000,
        handoffGraceMs: 30_000,
        endpointRecheckMs: 20_000,
        platformRecheckMs: 20_000,
        agentStartDeadlineMs: 600_000,
        dataVolumeStallDeadlineMs: 600_000,
        guestHealthRecheckMs: 60_000,
        teardownResyncMs: 60_000,
        cleanupTimeoutMs: 900_000,
      },
      build: { stepDeadlineMs: 2_700_000, installDeadlineMs: 7_200_000 },
    });
    const env = { OPERATOR_TIMINGS: 'lease.waitingResync=1m' };
    expect(loadOperatorConfig({}, env, noPodFile).timings.lease.waitingResyncMs).toBe(60_000);
    const flags = { timings: 'lease.notReadyGrace=1.5s, pool.scaleDownIdle=1h' };
    const { timings } = loadOperatorConfig(flags, env, noPodFile);
    expect(timings.lease).toEqual({
      ...DEFAULT_TIMINGS.lease,
      notReadyGraceMs: 1500,
    });
    expect(timings.pool.scaleDownIdleMs).toBe(3_600_000);
    expect(timings.instance).toEqual(DEFAULT_TIMINGS.instance);
  });

  it('takes the instance waits from --timings, keeping the defaults of the others', () => {
    const flags = { timings: 'instance.recheck=500ms,instance.cleanupTimeout=5s' };
    const { timings } = loadOperatorConfig(flags, {}, noPodFile);
    expect(timings.instance).toEqual({
      ...DEFAULT_TIMINGS.instance,
      recheckMs: 500,
      cleanupTimeoutMs: 5000,
    });
    expect(timings.lease).toEqual(DEFAULT_TIMINGS.lease);
  });

  it('gives the manager its runtime options only', () => {
    const config = loadOperatorConfig(
      { leaderElect: true, watchNamespace: 'team-a', workers: '3', logLevel: 'debug' },
      { OPERATOR_NAMESPACE: 'ops', POD_NAME: 'operator-0' },
      noPodFile,
    );
    expect(runtimeOptions(config)).toEqual({
      identity: `operator-0_${process.pid}`,
      logLevel: 'debug',
      workers: {
        clusterpool: 3,
        clusterlease: 3,
        clusterinstance: 3,
        guesthealth: 3,
        crcbundle: 3,
        bundlebuild: 3,
        cirun: 3,
        versionstream: 3,
        admissionpolicy: 3,
        ciaccesspolicy: 3,
      },
      namespace: 'team-a',
      metricsAddress: { host: '0.0.0.0', port: 8443 },
      secureMetrics: { hostname: 'guestcluster-operator-metrics.ops.svc' },
      probeAddress: { host: '0.0.0.0', port: 8081 },
      leaderElection: {
        namespace: 'ops',
        leaseName: '28494864.opdev.io',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2000,
      },
    });
    const standalone = loadOperatorConfig({}, {}, noPodFile);
    expect(runtimeOptions(standalone).leaderElection).toBeUndefined();
  });

  it('serves everything unless --scope-labels names what this operator serves', () => {
    expect(loadOperatorConfig({}, {}, noPodFile).scope).toBeUndefined();
    expect(loadOperatorConfig({ scopeLabels: 'team=a,tier=ci' }, {}, noPodFile).scope).toEqual({
      labels: { team: 'a', tier: 'ci' },
    });
    expect(() => loadOperatorConfig({ scopeLabels: 'team' }, {}, noPodFile)).toThrow(
      '--scope-labels must be key=value pairs',
    );
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
