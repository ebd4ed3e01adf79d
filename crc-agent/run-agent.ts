import type { ApiClient } from '../client/kube/api-client.js';
import { handoffSecretName } from '../contracts/handoff.js';
import type { AgentConfig } from './config.js';
import { AgentError, errorMessage, VmiNotCurrentError } from './errors.js';
import { fetchClusterInfo } from './fetch-cluster-info.js';
import type { Logger } from './logger.js';
import { preflight } from './preflight.js';
import type { HostKeys } from './fetch-cluster-info.js';
import { fingerprint, HostKeyPolicy } from './host-key.js';
import { publishHandoff, publishHostKey } from './publish.js';
import { recordedHostKey } from './recorded-host-key.js';
import { VmiMonitor } from './vmi-monitor.js';

export interface AgentDeps {
  log: Logger;
  /** The management cluster (in-cluster config, else KUBECONFIG). */
  managementApi: () => ApiClient;
  /** Fires on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

/** Exit codes: 0 for a published handoff or a fenced run (VMI no longer current), 1 otherwise. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;

function fail(log: Logger, error: unknown): number {
  const hint = error instanceof AgentError ? error.hint : undefined;
  const message = errorMessage(error);
  log.error(
    { error: message, ...(hint ? { hint } : {}) },
    `crc-agent failed: ${message}${hint ? `. To fix: ${hint}` : ''}`,
  );
  return EXIT_FAILED;
}

/**
 * Puts the host key met on first contact with this VMI into the handoff Secret, for the operator
 * to record. A failure only costs the record (the next run trusts first contact again): warn.
 */
async function recordFirstContact(
  api: ApiClient,
  config: AgentConfig,
  sshHostKey: string,
  log: Logger,
): Promise<void> {
  try {
    await publishHostKey(api, {
      instanceName: config.instanceName,
      namespace: config.instanceNamespace,
      instanceUid: config.instanceUid,
      vmiUid: config.vmiUid,
      sshHostKey,
    });
    log.info({ fingerprint: fingerprint(sshHostKey) }, 'Recorded the guest SSH host key');
  } catch (error) {
    log.warn(
      { error: errorMessage(error) },
      'Could not record the guest SSH host key in the handoff Secret; a later run trusts the key it meets first',
    );
  }
}

/**
 * The agent's whole run (docs/reference/agent-protocol.md#run-sequence). Never throws; returns the
 * process exit code.
 */
export async function runAgent(config: AgentConfig, deps: AgentDeps): Promise<number> {
  const { log } = deps;
  const vmi = {
    namespace: config.instanceNamespace,
    name: config.instanceName,
    uid: config.vmiUid,
  };
  let monitor: VmiMonitor;
  let inputs;
  let hostKeys: HostKeys;
  try {
    inputs = await preflight(config);
    const api = deps.managementApi();
    hostKeys = {
      policy: new HostKeyPolicy(await recordedHostKey(api, config)),
      firstContact: (key) => recordFirstContact(api, config, key, log),
    };
    monitor = new VmiMonitor(api, vmi, log, config.timings.vmiWatchRetryMs);
    await monitor.check().catch((error: unknown) => {
      throw new AgentError(
        `start-up VMI check failed: ${errorMessage(error)}`,
        `the crc-agent Job must run for the current, Running VirtualMachineInstance ${vmi.namespace}/${vmi.name} with UID ${vmi.uid} (CRC_VMI_UID)`,
        { cause: error },
      );
    });
  } catch (error) {
    return fail(log, error);
  }
  log.info({ vmi: `${vmi.namespace}/${vmi.name}`, vmiUid: vmi.uid }, 'Started crc-agent run');

  const watched = new AbortController();
  const onRootAbort = (): void => watched.abort(deps.signal.reason);
  deps.signal.addEventListener('abort', onRootAbort, { once: true });
  monitor.start(watched);
  let info;
  try {
    info = await fetchClusterInfo(config, inputs, watched.signal, log, hostKeys);
  } catch (error) {
    if (watched.signal.reason instanceof VmiNotCurrentError) {
      log.info(
        { reason: watched.signal.reason.message },
        'VMI is no longer current; ending agent run',
      );
      return EXIT_OK;
    }
    return fail(log, error);
  } finally {
    monitor.stop();
    deps.signal.removeEventListener('abort', onRootAbort);
  }

  try {
    await monitor.check();
  } catch (error) {
    if (error instanceof VmiNotCurrentError) {
      log.info({ reason: error.message }, 'VMI is no longer current; not publishing handoff');
      return EXIT_OK;
    }
    return fail(
      log,
      new AgentError(
        `final VMI check failed: ${errorMessage(error)}`,
        'check access to the management API',
        { cause: error },
      ),
    );
  }

  const name = handoffSecretName(config.instanceName, config.vmiUid);
  try {
    const outcome = await publishHandoff(deps.managementApi(), {
      instanceName: config.instanceName,
      namespace: config.instanceNamespace,
      instanceUid: config.instanceUid,
      vmiUid: config.vmiUid,
      kubeconfig: info.kubeconfig,
      ocpVersion: info.ocpVersion,
      ...(hostKeys.policy.key ? { sshHostKey: hostKeys.policy.key } : {}),
    });
    log.info(
      { secret: `${config.instanceNamespace}/${name}`, outcome },
      `Published handoff Secret ${name}`,
    );
    return EXIT_OK;
  } catch (error) {
    return fail(
      log,
      new AgentError(
        `publishing Secret ${config.instanceNamespace}/${name} failed: ${errorMessage(error)}`,
        'the agent ServiceAccount needs get and update on this handoff Secret (the operator creates it and a Role for it), or create when it is missing; an existing Secret of that name must be controlled by this ClusterInstance',
        { cause: error },
      ),
    );
  }
}
