/**
 * The crc-agent Job's inputs: the operator's Job builder writes an AgentJobSpec into the
 * container's environment (AgentJobSpec.toEnv) and mounts the agent's Secrets at AGENT_MOUNTS;
 * the agent reads the same spec back (AgentJobSpec.fromEnv) and adds its own settings.
 */

/** Where the Job mounts each input Secret: the volume, its folder and the file the agent reads. */
export const AGENT_MOUNTS = {
  pullSecret: {
    volume: 'pull-secret',
    dir: '/etc/crc-agent/pull-secret',
    file: '.dockerconfigjson',
  },
  bundleSshKey: { volume: 'bundle-ssh-key', dir: '/etc/crc-agent/ssh', file: 'id_ecdsa' },
  /** The crc identity Secret as a folder (its keys are crc-identity's). */
  identity: { volume: 'identity', dir: '/etc/crc-agent/identity' },
  instanceSshKey: {
    volume: 'instance-ssh-key',
    dir: '/etc/crc-agent/instance-ssh',
    file: 'id_ed25519',
  },
} as const;

/** The paths the agent reads its inputs from. */
export interface AgentPaths {
  sshKey: string;
  instanceSshKey: string;
  identity: string;
  pullSecret: string;
}

/** The paths of AGENT_MOUNTS: what the Job sets and what the agent assumes when none is set. */
export const AGENT_PATHS: AgentPaths = {
  sshKey: `${AGENT_MOUNTS.bundleSshKey.dir}/${AGENT_MOUNTS.bundleSshKey.file}`,
  instanceSshKey: `${AGENT_MOUNTS.instanceSshKey.dir}/${AGENT_MOUNTS.instanceSshKey.file}`,
  identity: AGENT_MOUNTS.identity.dir,
  pullSecret: `${AGENT_MOUNTS.pullSecret.dir}/${AGENT_MOUNTS.pullSecret.file}`,
};

/** The environment variables of the agent's configuration. */
export const AGENT_ENV = {
  instanceName: 'INSTANCE_NAME',
  instanceNamespace: 'INSTANCE_NAMESPACE',
  /** The agent checks that the handoff Secret it writes is controlled by this instance. */
  instanceUid: 'INSTANCE_UID',
  sshHost: 'CRC_SSH_HOST',
  vmiUid: 'CRC_VMI_UID',
  sshKeyPath: 'CRC_SSH_KEY_PATH',
  instanceSshKeyPath: 'CRC_INSTANCE_SSH_KEY_PATH',
  identityPath: 'CRC_IDENTITY_PATH',
  pullSecretPath: 'PULL_SECRET_PATH',
  apiHostname: 'CRC_API_HOSTNAME',
  /** Not written by the operator (the agent connects to port 22); a local run sets it. */
  sshPort: 'CRC_SSH_PORT',
  /** Not written by the operator (the agent logs in as core). */
  sshUser: 'CRC_SSH_USER',
  /** Reserved; read but unused. */
  vmName: 'CRC_VM_NAME',
} as const;

/** What the operator tells one agent run. */
export interface AgentJobSpec {
  instanceName: string;
  instanceNamespace: string;
  /** Empty for a legacy run (no owner reference on the handoff Secret). */
  instanceUid: string;
  /** The VMI's address, where the guest's sshd listens. */
  sshHost: string;
  vmiUid: string;
  /** The guest API host name the handoff kubeconfig names. */
  apiHostname: string;
  paths: AgentPaths;
}

/** The Job's environment of a spec, in the order the Job lists it. */
function toEnv(spec: AgentJobSpec): Record<string, string> {
  return {
    [AGENT_ENV.instanceName]: spec.instanceName,
    [AGENT_ENV.instanceNamespace]: spec.instanceNamespace,
    [AGENT_ENV.instanceUid]: spec.instanceUid,
    [AGENT_ENV.sshHost]: spec.sshHost,
    [AGENT_ENV.vmiUid]: spec.vmiUid,
    [AGENT_ENV.sshKeyPath]: spec.paths.sshKey,
    [AGENT_ENV.instanceSshKeyPath]: spec.paths.instanceSshKey,
    [AGENT_ENV.identityPath]: spec.paths.identity,
    [AGENT_ENV.pullSecretPath]: spec.paths.pullSecret,
    [AGENT_ENV.apiHostname]: spec.apiHostname,
  };
}

/**
 * The spec in an environment, values trimmed; a path not set is its mount's. Checks nothing:
 * the agent's configuration loader says what is missing or malformed.
 */
function fromEnv(env: Readonly<Record<string, string | undefined>>): AgentJobSpec {
  const value = (name: string): string => (env[name] ?? '').trim();
  const path = (name: string, mounted: string): string => value(name) || mounted;
  return {
    instanceName: value(AGENT_ENV.instanceName),
    instanceNamespace: value(AGENT_ENV.instanceNamespace),
    instanceUid: value(AGENT_ENV.instanceUid),
    sshHost: value(AGENT_ENV.sshHost),
    vmiUid: value(AGENT_ENV.vmiUid),
    apiHostname: value(AGENT_ENV.apiHostname),
    paths: {
      sshKey: path(AGENT_ENV.sshKeyPath, AGENT_PATHS.sshKey),
      instanceSshKey: path(AGENT_ENV.instanceSshKeyPath, AGENT_PATHS.instanceSshKey),
      identity: path(AGENT_ENV.identityPath, AGENT_PATHS.identity),
      pullSecret: path(AGENT_ENV.pullSecretPath, AGENT_PATHS.pullSecret),
    },
  };
}

/** A Job container's environment as a map (what `env` lists as name and value). */
function ofContainer(env: readonly { name: string; value?: string }[] | undefined): AgentJobSpec {
  return fromEnv(Object.fromEntries((env ?? []).map((e) => [e.name, e.value])));
}

export const AgentJobSpec = { toEnv, fromEnv, ofContainer };
