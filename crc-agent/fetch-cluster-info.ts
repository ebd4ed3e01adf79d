import type { AgentConfig } from './config.js';
import { ClusterFixups, runClusterFixups } from './cluster-fixups.js';
import { AgentError, errorMessage } from './errors.js';
import { runGuestFixups } from './guest-fixups.js';
import { handoffKubeconfig } from './guest-kubeconfig.js';
import { GuestShell } from './guest-shell.js';
import { GUEST_API_HOST, guestApiConnections } from './guest-tunnel.js';
import type { Logger } from './logger.js';
import { readPullSecret } from './preflight.js';
import type { Inputs } from './preflight.js';
import { RestClient } from './rest-client.js';
import { SshConnection } from './ssh-connection.js';
import { generateRunKey } from './ssh-key.js';
import { waitForSsh } from './wait-for-ssh.js';

export interface ClusterInfo {
  kubeconfig: string;
  ocpVersion: string;
}

async function connect(
  config: AgentConfig,
  privateKey: string,
  signal: AbortSignal,
  which: 'bundle key' | 'new key',
): Promise<SshConnection> {
  try {
    return await SshConnection.connect({
      host: config.sshHost,
      port: config.sshPort,
      username: config.sshUser,
      privateKey,
      timeoutMs: config.timings.sshConnectTimeoutMs,
      signal,
    });
  } catch (error) {
    const hint =
      which === 'bundle key'
        ? `the guest must accept user ${config.sshUser} with the bundle key: check that the bundle SSH key Secret matches the CRCBundle the disk was cloned from`
        : 'the new key was appended to /home/core/.ssh/authorized_keys; check sshd and that file in the guest';
    throw new AgentError(
      `SSH login to ${config.sshHost}:${config.sshPort} as ${config.sshUser} with the ${which} failed: ${errorMessage(error)}`,
      hint,
      { cause: error },
    );
  }
}

/** Steps 2-7 of spec §2: everything between start-up and the final VMI check. */
export async function fetchClusterInfo(
  config: AgentConfig,
  inputs: Inputs,
  signal: AbortSignal,
  log: Logger,
): Promise<ClusterInfo> {
  const { timings } = config;
  const endpoint = { host: config.sshHost, port: config.sshPort };
  try {
    await waitForSsh(endpoint, {
      probeTimeoutMs: timings.sshProbeTimeoutMs,
      intervalMs: timings.retryIntervalMs,
      timeoutMs: timings.sshWaitTimeoutMs,
      signal,
    });
  } catch (error) {
    throw new AgentError(
      `the guest's SSH port ${config.sshHost}:${config.sshPort} never accepted a connection: ${errorMessage(error)}`,
      'check that the VM booted (virtctl console) and that CRC_SSH_HOST is the VMI IP reachable from this pod',
      { cause: error },
    );
  }
  log.info(`Reached SSH on ${config.sshHost}:${config.sshPort}`);

  const guestRetry = {
    intervalMs: timings.retryIntervalMs,
    timeoutMs: timings.guestRetryTimeoutMs,
    signal,
  };
  const runKey = generateRunKey();
  const first = await connect(config, inputs.bundleKey, signal, 'bundle key');
  log.info('Connected to the guest with the bundle key');
  let fixed;
  try {
    fixed = await runGuestFixups(GuestShell.over(first), {
      identity: inputs.identity,
      newPublicKeyLine: runKey.authorizedKeyLine,
      retry: guestRetry,
      log,
    });
  } finally {
    first.close();
  }

  const second = await connect(config, runKey.privateKey, signal, 'new key');
  log.info('Reconnected to the guest with the new key');
  try {
    const api = new RestClient(
      guestApiConnections(second, {
        serverCaPem: fixed.serverCaPem,
        clientCertPem: inputs.identity.clientCertPem,
        clientKeyPem: inputs.identity.clientKeyPem,
      }),
      `${GUEST_API_HOST}:6443`,
    );
    const pullSecret = await readPullSecret(config);
    const fixups = new ClusterFixups(
      api,
      { intervalMs: timings.retryIntervalMs, timeoutMs: timings.clusterPollTimeoutMs, signal },
      log,
    );
    const ocpVersion = await runClusterFixups(fixups, {
      apiHostname: config.apiHostname,
      pullSecret,
      servingCertPem: inputs.identity.servingCertPem,
      servingKeyPem: inputs.identity.servingKeyPem,
    });
    log.info({ ocpVersion }, 'Guest cluster is configured');
    return { kubeconfig: handoffKubeconfig(config.apiHostname, inputs.identity), ocpVersion };
  } finally {
    second.close();
  }
}
