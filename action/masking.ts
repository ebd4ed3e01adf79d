import type { ActionCore } from './action-core.js';
import { kubeconfigCredentials } from '../client/kube/kubeconfig.js';

/** Registers a kubeconfig and each credential in it as secrets, so the runner masks them. */
export function maskKubeconfig(actions: Pick<ActionCore, 'setSecret'>, text: string): void {
  if (!text) return;
  actions.setSecret(text);
  for (const value of kubeconfigCredentials(text)) actions.setSecret(value);
}

/** Masks the management-cluster credentials of the inputs before anything else reads them. */
export function maskManagementInputs(actions: Pick<ActionCore, 'setSecret' | 'getInput'>): void {
  maskKubeconfig(actions, actions.getInput('management-kubeconfig'));
  const token = actions.getInput('management-token');
  if (token) actions.setSecret(token);
}
