import type { KubeConfig } from '@kubernetes/client-node';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { AgentConfig } from './config.js';
import { AgentError, errorMessage } from './errors.js';

interface InstanceRecord {
  metadata?: { uid?: string };
  status?: { crc?: { sshHostKey?: { vmiUID?: string; publicKey?: string } } };
}

/**
 * The guest's SSH host key as recorded in the instance's status on first contact with this VMI
 * (status.crc.sshHostKey, written by the operator only); undefined before first contact, and for
 * a legacy run, which has no ClusterInstance to read.
 */
export async function recordedHostKey(
  kubeConfig: KubeConfig,
  config: AgentConfig,
): Promise<string | undefined> {
  if (!config.instanceUid) return undefined;
  const where = `ClusterInstance ${config.instanceNamespace}/${config.instanceName}`;
  let instance: InstanceRecord;
  try {
    instance = (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'guestcluster.opdev.io',
      version: 'v1alpha1',
      namespace: config.instanceNamespace,
      plural: 'clusterinstances',
      name: config.instanceName,
    })) as InstanceRecord;
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
