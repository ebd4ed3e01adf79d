/** The output contract shared with the ClusterInstance controller (spec §6.1). */
export const HANDOFF_LABELS = {
  managedBy: 'opdev.io/managed-by',
  clusterInstance: 'opdev.io/cluster-instance',
} as const;

export const HANDOFF_MANAGED_BY = 'crc-agent';

/** Data keys of the handoff Secret. */
export const HANDOFF_KEYS = {
  kubeconfig: 'kubeconfig',
  ocpVersion: 'ocpVersion',
  vmiUid: 'vmiUID',
  /** The guest's SSH host key as the agent met it first (`<type> <base64>`), for the operator to record. */
  sshHostKey: 'sshHostKey',
} as const;

/** `<instance>-crc-raw-kubeconfig-<vmiUID>`: VMI-scoped, so a stale agent cannot overwrite a newer handoff. */
export function handoffSecretName(instanceName: string, vmiUid: string): string {
  return `${instanceName}-crc-raw-kubeconfig-${vmiUid}`;
}

export const CLUSTER_INSTANCE_API_VERSION = 'guestcluster.opdev.io/v1alpha1';
export const CLUSTER_INSTANCE_KIND = 'ClusterInstance';
