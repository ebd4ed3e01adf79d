import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { GitHubFlags, GitHubReclaimSettings } from './controllers/cirun/github-settings.js';
import { gitHubReclaimSettings } from './controllers/cirun/github-settings.js';
import type { CrcBounds } from './crc-bounds.js';
import { crcBounds } from './crc-bounds.js';
import type { OperatorScope } from './operator-scope.js';
import { scopeFromFlag } from './operator-scope.js';
import type { ListenAddress } from './runtime/http-endpoints.js';
import type { LogLevel } from './runtime/logger.js';
import { LOG_LEVELS } from './runtime/logger.js';
import type { ManagerOptions, RuntimeOptions } from './runtime/manager.js';
import type { SecureMetricsSettings } from './runtime/metrics-endpoint.js';
import type { TokenExchangeFlags, TokenExchangeSettings } from './exchange/exchange-settings.js';
import { tokenExchangeSettings } from './exchange/exchange-settings.js';
import type { Timings } from './timings.js';
import { loadTimings } from './timings.js';
import type { WorkerCounts } from './worker-counts.js';
import { FALLBACK_WORKERS, parseWorkers } from './worker-counts.js';
import type {
  VersionStreamFlags,
  VersionStreamSettings,
} from './controllers/versionstream/stream-settings.js';
import { versionStreamSettings } from './controllers/versionstream/stream-settings.js';

export type { ListenAddress };

/** Everything the operator process needs, validated before anything starts. */
export interface OperatorConfig {
  /** Where the operator keeps golden disks, bundle Secrets and prep Jobs; also the leader-election namespace. */
  operatorNamespace: string;
  crcAgentImage: string;
  /** Base URL of the published CRC bundles (`<base>/<version>/<bundle file>`, `<base>/<version>/sha256sum.txt`). */
  crcBundleMirrorUrl: string;
  crcAgentClusterRole: string;
  crcAgentServiceAccount: string;
  metricsAddress: ListenAddress | undefined;
  /** HTTPS with TokenReview and SubjectAccessReview (--metrics-secure, the default); plain HTTP when unset. */
  secureMetrics: SecureMetricsSettings | undefined;
  probeAddress: ListenAddress | undefined;
  leaderElection: {
    enabled: boolean;
    leaseName: string;
    identity: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  logLevel: LogLevel;
  /** Concurrent reconciles of each controller (--workers), every name of CONTROLLER_NAMES. */
  workers: WorkerCounts;
  /** Act on pools, leases and instances of this namespace only; all namespaces when unset. */
  watchNamespace?: string;
  /** What this operator serves beside others on the cluster (--scope-labels); everything when unset. */
  scope?: OperatorScope;
  /** The controllers this process runs (all by default). */
  controllers: ControllerName[];
  /** Which CRC versions tenants may use, and how many bundles are prepared at once. */
  crc: CrcBounds;
  /** The lease and pool controllers' waits. */
  timings: Timings;
  /** Releasing leases whose GitHub job has completed; off (undefined) without a credentials Secret. */
  github?: GitHubReclaimSettings;
  /** Where VersionStreams are resolved (the update service) and how often. */
  versionStreams: VersionStreamSettings;
  /** The CI token exchange (docs/ci-identities.md); off (undefined) without an address. */
  tokenExchange?: TokenExchangeSettings;
}

export const CONTROLLER_NAMES = [
  'clusterpool',
  'clusterlease',
  'clusterinstance',
  'guesthealth',
  'crcbundle',
  'cirun',
  'versionstream',
  'admissionpolicy',
  'ciaccesspolicy',
] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** Settings as given on the command line (strings, as typed). */
export interface OperatorFlags extends GitHubFlags, VersionStreamFlags, TokenExchangeFlags {
  metricsBindAddress?: string;
  metricsSecure?: string;
  metricsCertPath?: string;
  healthProbeBindAddress?: string;
  leaderElect?: boolean;
  leaderElectLeaseDuration?: string;
  leaderElectRenewDeadline?: string;
  leaderElectRetryPeriod?: string;
  logLevel?: string;
  workers?: string;
  watchNamespace?: string;
  scopeLabels?: string;
  controllers?: string;
  allowedCrcVersions?: string;
  maxPreparingBundles?: string;
  maxBuildingBundles?: string;
  timings?: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export const SERVICE_ACCOUNT_NAMESPACE_FILE =
  '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
export const DEFAULT_CRC_AGENT_IMAGE = 'opdev.io/guestcluster-operator-crc-agent:latest';
export const DEFAULT_CRC_BUNDLE_MIRROR_URL =
  'https://mirror.openshift.com/pub/openshift-v4/clients/crc/bundles/openshift';
export const LEADER_ELECTION_ID = '28494864.opdev.io';
/** The metrics Service of operator/deploy: the self-signed certificate's host name. */
export const METRICS_SERVICE = 'guestcluster-operator-metrics';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The reference's fallback order: the variable, the pod's service-account namespace file, "default". */
function operatorNamespace(env: NodeJS.ProcessEnv, readFile: (path: string) => string): string {
  if (env.OPERATOR_NAMESPACE) return env.OPERATOR_NAMESPACE;
  try {
    const fromPod = readFile(SERVICE_ACCOUNT_NAMESPACE_FILE).trim();
    if (fromPod) return fromPod;
  } catch {
    // Not in a pod.
  }
  return 'default';
}

class Checker {
  readonly problems: string[] = [];

  address(setting: string, value: string): ListenAddress | undefined {
    if (value === '0') return undefined;
    const match = /^(\[[^\]]+\]|[^:]*):(\d{1,5})$/.exec(value);
    const port = match ? Number(match[2]) : NaN;
    if (!match || port > 65535) {
      this.problems.push(`${setting} must be host:port, :port or 0 to disable (got "${value}")`);
      return undefined;
    }
    return { host: (match[1] ?? '').replace(/^\[|\]$/g, '') || '0.0.0.0', port };
  }

  duration(setting: string, value: string): number {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
    if (!match) {
      this.problems.push(`${setting} must be a duration such as 15s, 500ms or 1m (got "${value}")`);
      return NaN;
    }
    return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
  }

  integer(setting: string, value: string, min: number, max: number): number {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max) {
      this.problems.push(`${setting} must be an integer from ${min} to ${max} (got "${value}")`);
    }
    return number;
  }

  namespaceName(setting: string, value: string): string {
    if (!DNS_LABEL.test(value) || value.length > 63)
      this.problems.push(`${setting} must be a namespace name (got "${value}")`);
    return value;
  }

  boolean(setting: string, value: string): boolean {
    if (value !== 'true' && value !== 'false')
      this.problems.push(`${setting} must be true or false (got "${value}")`);
    return value !== 'false';
  }

  require(condition: boolean, problem: string): void {
    if (!condition) this.problems.push(problem);
  }
}

function leaderElectionConfig(
  check: Checker,
  flags: OperatorFlags,
  env: NodeJS.ProcessEnv,
): OperatorConfig['leaderElection'] {
  const leaseDurationMs = check.duration(
    '--leader-elect-lease-duration',
    flags.leaderElectLeaseDuration ?? '15s',
  );
  const renewDeadlineMs = check.duration(
    '--leader-elect-renew-deadline',
    flags.leaderElectRenewDeadline ?? '10s',
  );
  const retryPeriodMs = check.duration(
    '--leader-elect-retry-period',
    flags.leaderElectRetryPeriod ?? '2s',
  );
  if (!Number.isNaN(leaseDurationMs + renewDeadlineMs + retryPeriodMs)) {
    check.require(
      leaseDurationMs > renewDeadlineMs,
      '--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline',
    );
    check.require(
      renewDeadlineMs > 1.2 * retryPeriodMs,
      '--leader-elect-renew-deadline must be longer than 1.2 × --leader-elect-retry-period',
    );
  }
  return {
    enabled: flags.leaderElect ?? false,
    leaseName: LEADER_ELECTION_ID,
    identity: `${env.POD_NAME || os.hostname()}_${process.pid}`,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
  };
}

/** Where /metrics listens and how: HTTPS with authentication and authorization unless told otherwise. */
function metricsConfig(
  check: Checker,
  flags: OperatorFlags,
  namespace: string,
): Pick<OperatorConfig, 'metricsAddress' | 'secureMetrics'> {
  const secure = check.boolean('--metrics-secure', flags.metricsSecure ?? 'true');
  return {
    metricsAddress: check.address(
      '--metrics-bind-address',
      flags.metricsBindAddress ?? (secure ? ':8443' : ':8080'),
    ),
    secureMetrics: secure
      ? {
          certDir: flags.metricsCertPath || undefined,
          hostname: `${METRICS_SERVICE}.${namespace}.svc`,
        }
      : undefined,
  };
}

function controllerNames(check: Checker, value: string | undefined): ControllerName[] {
  if (value === undefined) return [...CONTROLLER_NAMES];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(CONTROLLER_NAMES as readonly string[]).includes(name));
  check.require(
    names.length > 0 && unknown.length === 0,
    `--controllers must list some of ${CONTROLLER_NAMES.join(', ')} (got "${value}")`,
  );
  return names.filter((name): name is ControllerName => !unknown.includes(name));
}

function exchangeChecks(check: Checker): Parameters<typeof tokenExchangeSettings>[3] {
  return {
    address: (setting, value) => check.address(setting, value),
    integer: (setting, value, min, max) => check.integer(setting, value, min, max),
    problems: check.problems,
  };
}

/**
 * Builds the configuration from flags and environment and checks all of it, reporting every
 * problem at once with the setting's name and the value given.
 */
export function loadOperatorConfig(
  flags: OperatorFlags,
  env: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): OperatorConfig {
  const check = new Checker();
  const namespace = check.namespaceName('OPERATOR_NAMESPACE', operatorNamespace(env, readFile));
  const crcAgentImage = env.CRC_AGENT_IMAGE ?? DEFAULT_CRC_AGENT_IMAGE;
  check.require(
    crcAgentImage.length > 0 && !/\s/.test(crcAgentImage),
    `CRC_AGENT_IMAGE must be an image reference (got "${crcAgentImage}")`,
  );
  const crcBundleMirrorUrl = (env.CRC_BUNDLE_MIRROR_URL || DEFAULT_CRC_BUNDLE_MIRROR_URL).replace(
    /\/+$/,
    '',
  );
  check.require(
    /^https?:\/\/[^\s/]+(\/\S*)?$/.test(crcBundleMirrorUrl),
    `CRC_BUNDLE_MIRROR_URL must be an http(s) URL (got "${crcBundleMirrorUrl}")`,
  );
  const logLevel = flags.logLevel ?? 'info';
  check.require(
    (LOG_LEVELS as readonly string[]).includes(logLevel),
    `--log-level must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`,
  );

  const config: OperatorConfig = {
    operatorNamespace: namespace,
    crcAgentImage,
    crcBundleMirrorUrl,
    crcAgentClusterRole: env.CRC_AGENT_CLUSTER_ROLE || 'crc-agent-instance-role',
    crcAgentServiceAccount: env.CRC_AGENT_SERVICE_ACCOUNT || 'crc-agent',
    ...metricsConfig(check, flags, namespace),
    probeAddress: check.address(
      '--health-probe-bind-address',
      flags.healthProbeBindAddress ?? ':8081',
    ),
    leaderElection: leaderElectionConfig(check, flags, env),
    logLevel: logLevel as LogLevel,
    workers: parseWorkers(flags.workers, CONTROLLER_NAMES, check.problems),
    watchNamespace: flags.watchNamespace
      ? check.namespaceName('--watch-namespace', flags.watchNamespace)
      : undefined,
    scope: scopeFromFlag(flags.scopeLabels, check.problems),
    controllers: controllerNames(check, flags.controllers),
    crc: crcBounds(flags, env, check.problems),
    timings: loadTimings(flags, env, check.problems),
    github: gitHubReclaimSettings(flags, env, check.problems, readFile),
    versionStreams: versionStreamSettings(flags, env, check.problems),
    tokenExchange: tokenExchangeSettings(flags, env, namespace, exchangeChecks(check), readFile),
  };
  if (check.problems.length > 0) throw new ConfigError(check.problems);
  return config;
}

/** How the manager runs, from the configuration: only what the runtime needs of it. */
export function runtimeOptions(config: OperatorConfig): RuntimeOptions {
  const election = config.leaderElection;
  return {
    identity: election.identity,
    logLevel: config.logLevel,
    // Both CRCBundle controllers (downloads and builds) are `crcbundle` to --controllers.
    workers: { ...config.workers, bundlebuild: config.workers.crcbundle ?? FALLBACK_WORKERS },
    namespace: config.watchNamespace,
    metricsAddress: config.metricsAddress,
    secureMetrics: config.secureMetrics,
    probeAddress: config.probeAddress,
    leaderElection: election.enabled
      ? {
          namespace: config.operatorNamespace,
          leaseName: election.leaseName,
          leaseDurationMs: election.leaseDurationMs,
          renewDeadlineMs: election.renewDeadlineMs,
          retryPeriodMs: election.retryPeriodMs,
        }
      : undefined,
  };
}

/**
 * The manager's options for the operator: its runtime only. The controllers get their settings
 * from the configuration where they are built (registerControllers).
 */
export function managerOptions(config: OperatorConfig): Pick<ManagerOptions, 'runtime'> {
  return { runtime: runtimeOptions(config) };
}
