import { AGENT_ENV, AgentJobSpec } from '../contracts/agent-job.js';
import { parseDuration } from './durations.js';

/** Waits and retries. Fixed in production; the overrides exist for local development and tests. */
export interface AgentTimings {
  /** How long to wait for the guest's SSH port to accept connections (5m). */
  sshWaitTimeoutMs: number;
  /** Timeout of one TCP probe of the SSH port (5s). */
  sshProbeTimeoutMs: number;
  /** TCP connect plus SSH handshake (30s). */
  sshConnectTimeoutMs: number;
  /** Pause between attempts of every retry loop: SSH probe, guest commands, guest API polls (10s). */
  retryIntervalMs: number;
  /** Guest-side retries: reading /opt/kubeconfig, the client-CA patch (10m). */
  guestRetryTimeoutMs: number;
  /** Guest API polls: API server up, cluster operators, cluster version (20m). */
  clusterPollTimeoutMs: number;
  /** Pause before the VMI watch re-lists after an error or a closed stream (1s). */
  vmiWatchRetryMs: number;
}

export const DEFAULT_TIMINGS: AgentTimings = {
  sshWaitTimeoutMs: 5 * 60_000,
  sshProbeTimeoutMs: 5_000,
  sshConnectTimeoutMs: 30_000,
  retryIntervalMs: 10_000,
  guestRetryTimeoutMs: 10 * 60_000,
  clusterPollTimeoutMs: 20 * 60_000,
  vmiWatchRetryMs: 1_000,
};

/** The one typed configuration object of an agent run, validated before anything starts. */
export interface AgentConfig {
  instanceName: string;
  instanceNamespace: string;
  /** Empty for a legacy run (no owner reference on the output Secret). */
  instanceUid: string;
  vmiUid: string;
  sshHost: string;
  sshPort: number;
  sshUser: string;
  sshKeyPath: string;
  /**
   * The instance's own SSH key, which replaces the bundle key in the guest (a Job of an operator
   * that mounts none keeps the bundle key and uses a key of its run for the second login).
   */
  instanceSshKeyPath: string;
  pullSecretPath: string;
  identityPath: string;
  apiHostname: string;
  /** Reserved (CRC_VM_NAME); read but unused, as in the reference. */
  recordedVmName: string;
  timings: AgentTimings;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Command-line flags that override the environment (Go style: -flag value, --flag=value). */
const FLAGS: Record<string, string> = {
  'instance-name': AGENT_ENV.instanceName,
  namespace: AGENT_ENV.instanceNamespace,
  'ssh-host': AGENT_ENV.sshHost,
  'vmi-uid': AGENT_ENV.vmiUid,
};

export type AgentMode = 'agent' | 'bundle-prep';

export interface ParsedArgs {
  mode: AgentMode;
  /** Flag values, under the environment variable they override. */
  overrides: Record<string, string>;
}

/** Parses the command line: an optional mode word, then the agent's flags. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const overrides: Record<string, string> = {};
  let mode: AgentMode = 'agent';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (i === 0 && arg === 'bundle-prep') {
      mode = 'bundle-prep';
      continue;
    }
    const match = /^--?([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const variable = match ? FLAGS[match[1]!] : undefined;
    if (!match || !variable) throw new ConfigError(`unknown argument "${arg}"`);
    let value = match[2];
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new ConfigError(`flag ${arg} needs a value`);
    }
    overrides[variable] = value;
  }
  return { mode, overrides };
}

const TIMING_VARIABLES: Record<string, keyof AgentTimings> = {
  CRC_AGENT_SSH_WAIT_TIMEOUT: 'sshWaitTimeoutMs',
  CRC_AGENT_RETRY_INTERVAL: 'retryIntervalMs',
  CRC_AGENT_GUEST_RETRY_TIMEOUT: 'guestRetryTimeoutMs',
  CRC_AGENT_CLUSTER_POLL_TIMEOUT: 'clusterPollTimeoutMs',
};

/**
 * Timings with the duration overrides an environment sets (`variables` maps each variable to its
 * field); names a malformed one.
 */
export function readTimingOverrides<T extends object>(
  env: Readonly<Record<string, string | undefined>>,
  variables: Record<string, keyof T>,
  defaults: T,
): T {
  const timings = { ...defaults };
  for (const [variable, field] of Object.entries(variables)) {
    const text = env[variable];
    if (!text) continue;
    const ms = parseDuration(text);
    if (ms === undefined)
      throw new ConfigError(`${variable}="${text}" is not a duration such as 30s or 5m`);
    (timings as Record<keyof T, unknown>)[field] = ms;
  }
  return timings;
}

function readTimings(env: Record<string, string | undefined>): AgentTimings {
  return readTimingOverrides(env, TIMING_VARIABLES, DEFAULT_TIMINGS);
}

function readPort(text: string | undefined): number {
  if (!text) return 22;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535)
    throw new ConfigError(`${AGENT_ENV.sshPort}="${text}" is not a TCP port (1-65535)`);
  return port;
}

/**
 * Builds the configuration from the environment and flag overrides: the Job's AgentJobSpec plus
 * the agent's own settings. Names the first setting that is missing or malformed.
 * CRC_API_HOSTNAME is checked with the identity (pre-flight), so its error says how the identity
 * and hostname relate.
 */
export function loadAgentConfig(
  env: Record<string, string | undefined>,
  overrides: Record<string, string> = {},
): AgentConfig {
  const merged = { ...env, ...overrides };
  const value = (name: string): string => (merged[name] ?? '').trim();
  const required = [
    AGENT_ENV.instanceName,
    AGENT_ENV.instanceNamespace,
    AGENT_ENV.sshHost,
    AGENT_ENV.vmiUid,
  ];
  const missing = required.filter((name) => !value(name));
  if (missing.length > 0)
    throw new ConfigError(`missing required configuration: ${missing.join(', ')} must be set`);
  const spec = AgentJobSpec.fromEnv(merged);
  return {
    instanceName: spec.instanceName,
    instanceNamespace: spec.instanceNamespace,
    instanceUid: spec.instanceUid,
    vmiUid: spec.vmiUid,
    sshHost: spec.sshHost,
    sshPort: readPort(value(AGENT_ENV.sshPort)),
    sshUser: value(AGENT_ENV.sshUser) || 'core',
    sshKeyPath: spec.paths.sshKey,
    instanceSshKeyPath: spec.paths.instanceSshKey,
    pullSecretPath: spec.paths.pullSecret,
    identityPath: spec.paths.identity,
    apiHostname: spec.apiHostname,
    recordedVmName: value(AGENT_ENV.vmName),
    timings: readTimings(merged),
  };
}
