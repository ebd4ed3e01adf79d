import { INSTANCES } from '../client/api/resources.js';
import type { ApiClient } from '../client/kube/api-client.js';
import type { KubeObject } from '../client/kube/objects.js';
import type { AgentConfig } from './config.js';
import { AgentError, errorMessage } from './errors.js';

interface InstanceRecord extends KubeObject {
  status?: { crc?: { sshHostKey?: { vmiUID?: string; publicKey?: string } } };
}

/**
 * The guest's SSH host key as recorded in the instance's status on first contact with this VMI
 * (status.crc.sshHostKey, written by the operator only); undefined before first contact, and for
 * a legacy run, which has no ClusterInstance to read.
 */
export async function recordedHostKey(
  api: ApiClient,
  config: AgentConfig,
): Promise<string | undefined> {
  if (!config.instanceUid) return undefined;
  const where = `ClusterInstance ${config.instanceNamespace}/${config.instanceName}`;
  let instance: InstanceRecord;
  try {
    instance = await api.get<InstanceRecord>(
      INSTANCES,
      config.instanceName,
      config.instanceNamespace,
    );
  } catch (error) {
    throw new AgentError(
      `reading ${where} for the recorded SSH host key failed: ${errorMessage(error)}`,
      "the agent's handoff Role must allow get on its own ClusterInstance (the operator grants it)",
      { cause: error },
    );
  }
  if (instance.metadata?.uid !== config.instanceUid)
    throw new AgentError(
      `${where} has UID ${instance.metadata?.uid ?? 'none'}, not INSTANCE_UID ${config.instanceUid}`,
      'this Job belongs to a ClusterInstance of that name that was deleted; it ends with it',
    );
  const record = instance.status?.crc?.sshHostKey;
  return record?.vmiUID === config.vmiUid ? record.publicKey : undefined;
}
