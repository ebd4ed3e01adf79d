import { BUILD_ENV, BuildJobSpec, STEP_GUEST } from '../../contracts/bundle-build.js';
import type { BuildJobPaths, BuildStep } from '../../contracts/bundle-build.js';
import { ConfigError } from '../config.js';
import { parseDuration } from '../durations.js';

/** Waits of the build steps; fixed in production, overridable for local runs and tests. */
export interface BuildTimings {
  /** How long a guest's SSH port may take to accept connections (a boot, a reboot): 20m. */
  sshWaitTimeoutMs: number;
  sshProbeTimeoutMs: number;
  sshConnectTimeoutMs: number;
  /** Pause between polls of every wait (10s, as SNC's loops). */
  retryIntervalMs: number;
  /** The install (P5): 90m. */
  installTimeoutMs: number;
  /** Cluster waits: stable operators, an Updated pool, a new rendered config (30m each). */
  clusterPollTimeoutMs: number;
}

export const DEFAULT_BUILD_TIMINGS: BuildTimings = {
  sshWaitTimeoutMs: 20 * 60_000,
  sshProbeTimeoutMs: 5_000,
  sshConnectTimeoutMs: 30_000,
  retryIntervalMs: 10_000,
  installTimeoutMs: 90 * 60_000,
  clusterPollTimeoutMs: 30 * 60_000,
};

const TIMING_VARIABLES: Record<string, keyof BuildTimings> = {
  CRC_AGENT_SSH_WAIT_TIMEOUT: 'sshWaitTimeoutMs',
  CRC_AGENT_RETRY_INTERVAL: 'retryIntervalMs',
  CRC_AGENT_CLUSTER_POLL_TIMEOUT: 'clusterPollTimeoutMs',
  BUILD_INSTALL_TIMEOUT: 'installTimeoutMs',
};

export interface BuildConfig extends Omit<BuildJobSpec, 'certificateRotation'> {
  certificateRotation: 'Enabled' | 'Disabled';
  paths: BuildJobPaths;
  sshPort: number;
  sshUser: string;
  timings: BuildTimings;
}

/** The settings each step cannot run without (besides the step itself). */
const NEEDS: Partial<Record<BuildStep, (keyof typeof BUILD_ENV)[]>> = {
  resolve: ['releaseImage'],
  'dns-check': ['dnsIp'],
  iso: ['isoUrl', 'isoSha256'],
  'seal-check': ['dnsIp'],
};

/**
 * The build Job's configuration for `step` (the command line's, which must match BUILD_STEP
 * when that is set). Names the first setting that is missing or malformed.
 */
export function loadBuildConfig(
  step: string,
  env: Readonly<Record<string, string | undefined>>,
): BuildConfig {
  const { spec, paths, sshPort } = BuildJobSpec.fromEnv(env);
  const named = (env[BUILD_ENV.step] ?? '').trim();
  if (named && named !== step)
    throw new ConfigError(`${BUILD_ENV.step}="${named}" but the command line asks for "${step}"`);
  const missing = (['bundleName', 'bundleUid', 'attempt'] as const).filter((key) => !spec[key]);
  if (missing.length > 0)
    throw new ConfigError(
      `missing required configuration: ${missing.map((key) => BUILD_ENV[key]).join(', ')} must be set`,
    );
  const rotation = spec.certificateRotation || 'Enabled';
  if (rotation !== 'Enabled' && rotation !== 'Disabled')
    throw new ConfigError(
      `${BUILD_ENV.certificateRotation}="${rotation}" is not Enabled or Disabled`,
    );
  if (!Number.isInteger(spec.clockOffsetSeconds))
    throw new ConfigError(`${BUILD_ENV.clockOffsetSeconds} must be a whole number of seconds`);
  const config: BuildConfig = {
    ...spec,
    step: step as BuildStep,
    certificateRotation: rotation,
    paths,
    sshPort: sshPort ?? 22,
    sshUser: (env.CRC_SSH_USER ?? '').trim() || 'core',
    timings: readTimings(env),
  };
  checkStepNeeds(config);
  return config;
}

/** The settings of the step's own: its inputs, and for a guest step the guest. */
function checkStepNeeds(config: BuildConfig): void {
  const needed: (keyof typeof BUILD_ENV)[] = [...(NEEDS[config.step] ?? [])];
  if (STEP_GUEST[config.step] !== 'none') needed.push('sshHost', 'vmiUid');
  const absent = needed.filter((key) => !(config as unknown as Record<string, unknown>)[key]);
  if (absent.length > 0)
    throw new ConfigError(
      `missing required configuration for step ${config.step}: ${absent.map((key) => BUILD_ENV[key]).join(', ')} must be set`,
    );
}

function readTimings(env: Readonly<Record<string, string | undefined>>): BuildTimings {
  const timings = { ...DEFAULT_BUILD_TIMINGS };
  for (const [variable, field] of Object.entries(TIMING_VARIABLES)) {
    const text = env[variable];
    if (!text) continue;
    const ms = parseDuration(text);
    if (ms === undefined)
      throw new ConfigError(`${variable}="${text}" is not a duration such as 30s or 5m`);
    timings[field] = ms;
  }
  return timings;
}
