import { LABEL_CLUSTER_INSTANCE, LABEL_MANAGED_BY } from './labels.js';

/**
 * The crc-agent's output for one VMI: a Secret in the instance's namespace that the agent writes
 * and the operator reads (and makes empty before an agent run, so empty means "not yet").
 */

/** The value of LABEL_MANAGED_BY on a handoff Secret. */
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

/** The name agents of older operators wrote to, before handoffs were VMI-scoped. */
export function legacyHandoffSecretName(instanceName: string): string {
  return `${instanceName}-crc-raw-kubeconfig`;
}

/** The labels of an instance's handoff Secrets. */
export function handoffLabels(instanceName: string): Record<string, string> {
  return { [LABEL_MANAGED_BY]: HANDOFF_MANAGED_BY, [LABEL_CLUSTER_INSTANCE]: instanceName };
}

/** Selects every handoff Secret of an instance. */
export function handoffSelector(instanceName: string): string {
  return `${LABEL_MANAGED_BY}=${HANDOFF_MANAGED_BY},${LABEL_CLUSTER_INSTANCE}=${instanceName}`;
}
