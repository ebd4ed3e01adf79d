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
import { connect, dropBundleKey, firstLogin } from './guest-login.js';
import type { HostKeyPolicy } from './host-key.js';
import { generateRunKey } from './ssh-key.js';
import { waitForSsh } from './wait-for-ssh.js';

export interface ClusterInfo {
  kubeconfig: string;
  ocpVersion: string;
}

/** How the run holds to the guest's host key, and tells of the one it met first. */
export interface HostKeys {
  policy: HostKeyPolicy;
  /** Records a host key met for the first time (the handoff Secret carries it to the operator). */
  firstContact(key: string): Promise<void>;
}

/**
 * Steps 2-7 of docs/reference/agent-protocol.md#run-sequence: everything between start-up and the
 * final VMI check.
 */
export async function fetchClusterInfo(
  config: AgentConfig,
  inputs: Inputs,
  signal: AbortSignal,
  log: Logger,
  hostKeys: HostKeys,
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
  const login = inputs.instanceKey ?? generateRunKey();
  const first = await firstLogin(config, inputs, hostKeys.policy, signal);
  log.info(`Connected to the guest with the ${first.which}`);
  let fixed;
  try {
    if (!hostKeys.policy.recorded) await hostKeys.firstContact(hostKeys.policy.key!);
    fixed = await runGuestFixups(GuestShell.over(first.connection), {
      identity: inputs.identity,
      ...(first.which === 'bundle key' ? { newPublicKeyLine: login.authorizedKeyLine } : {}),
      retry: guestRetry,
      log,
    });
  } finally {
    first.connection.close();
  }

  const which = inputs.instanceKey ? 'instance key' : 'new key';
  const second = await connect(
    config,
    { privateKey: login.privateKey, which, hostKeys: hostKeys.policy },
    signal,
  );
  log.info(`Reconnected to the guest with the ${which}`);
  try {
    if (inputs.instanceKey) await dropBundleKey(GuestShell.over(second), inputs.bundleKey, log);
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
