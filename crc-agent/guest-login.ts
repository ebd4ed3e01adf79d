import type { AgentConfig } from './config.js';
import { AgentError, errorMessage } from './errors.js';
import { removeAuthorizedKeyCommand } from './guest-fixups.js';
import type { GuestShell } from './guest-shell.js';
import type { HostKeyPolicy } from './host-key.js';
import { fingerprint } from './host-key.js';
import type { Logger } from './logger.js';
import type { Inputs } from './preflight.js';
import { SshConnection } from './ssh-connection.js';
import { publicKeyLine } from './ssh-key.js';

export type KeyName = 'bundle key' | 'instance key' | 'new key';

const HINTS: Record<KeyName, string> = {
  'bundle key':
    'the guest must accept user core with the bundle key: check that the bundle SSH key Secret matches the CRCBundle the disk was cloned from',
  'instance key':
    "the guest must accept the instance's key (Secret <instance>-crc-ssh-key), which the agent put into /home/core/.ssh/authorized_keys",
  'new key':
    'the new key was appended to /home/core/.ssh/authorized_keys; check sshd and that file in the guest',
};

/** The guest answered with another host key than the one this VMI showed on first contact. */
function hostKeyRefused(config: AgentConfig, hostKeys: HostKeyPolicy): AgentError {
  const where = `${config.sshHost}:${config.sshPort}`;
  const recorded = hostKeys.recorded ? 'recorded in the ClusterInstance status' : 'met first';
  return new AgentError(
    `refused the SSH host key of ${where} (${fingerprint(hostKeys.refused!)}): it is not the host key ${recorded} for VMI ${config.vmiUid} (${fingerprint(hostKeys.key!)})`,
    'something else answers at the VMI address, or the guest was rebuilt; nothing was sent to it. Delete the ClusterInstance to replace it if its guest is to be trusted no more',
  );
}

/** One login; a refused host key fails with its own error, before any credential is used. */
export async function connect(
  config: AgentConfig,
  login: { privateKey: string; which: KeyName; hostKeys: HostKeyPolicy },
  signal: AbortSignal,
): Promise<SshConnection> {
  try {
    return await SshConnection.connect({
      host: config.sshHost,
      port: config.sshPort,
      username: config.sshUser,
      privateKey: login.privateKey,
      timeoutMs: config.timings.sshConnectTimeoutMs,
      signal,
      hostKeys: login.hostKeys,
    });
  } catch (error) {
    if (login.hostKeys.refused) throw hostKeyRefused(config, login.hostKeys);
    throw new AgentError(
      `SSH login to ${config.sshHost}:${config.sshPort} as ${config.sshUser} with the ${login.which} failed: ${errorMessage(error)}`,
      HINTS[login.which].replace('user core', `user ${config.sshUser}`),
      { cause: error },
    );
  }
}

/**
 * The first login: with the instance's own key when the guest has it already (a rerun after the
 * bundle key was removed), else with the bundle key.
 */
export async function firstLogin(
  config: AgentConfig,
  inputs: Inputs,
  hostKeys: HostKeyPolicy,
  signal: AbortSignal,
): Promise<{ connection: SshConnection; which: KeyName }> {
  if (inputs.instanceKey) {
    try {
      const connection = await connect(
        config,
        { privateKey: inputs.instanceKey.privateKey, which: 'instance key', hostKeys },
        signal,
      );
      return { connection, which: 'instance key' };
    } catch (error) {
      if (hostKeys.refused) throw error;
    }
  }
  const connection = await connect(
    config,
    { privateKey: inputs.bundleKey, which: 'bundle key', hostKeys },
    signal,
  );
  return { connection, which: 'bundle key' };
}

/**
 * Takes the bundle key out of authorized_keys, over a login with the instance's key: every guest
 * of a bundle shares it, and it ships in the public bundle.
 */
export async function dropBundleKey(
  shell: GuestShell,
  bundleKey: string,
  log: Logger,
): Promise<void> {
  try {
    await shell.privileged(removeAuthorizedKeyCommand(publicKeyLine(bundleKey)));
  } catch (error) {
    throw new AgentError(
      `removing the bundle key from /home/core/.ssh/authorized_keys failed: ${errorMessage(error)}`,
      'check /home/core/.ssh in the guest (virtctl console)',
      { cause: error },
    );
  }
  log.info('Removed the bundle key from authorized_keys; the instance key logs in');
}
