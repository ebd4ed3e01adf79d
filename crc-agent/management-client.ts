import { KubeConfig } from '@kubernetes/client-node';
import { AgentError, errorMessage } from './errors.js';

/** In-cluster configuration first (the Job's ServiceAccount), then KUBECONFIG for local runs. */
export function loadManagementConfig(env: Record<string, string | undefined>): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    try {
      kubeConfig.loadFromCluster();
      return kubeConfig;
    } catch {
      // Fall through to KUBECONFIG.
    }
  }
  if (env.KUBECONFIG) {
    try {
      kubeConfig.loadFromFile(env.KUBECONFIG);
      return kubeConfig;
    } catch (error) {
      throw new AgentError(
        `loading KUBECONFIG ${env.KUBECONFIG} failed: ${errorMessage(error)}`,
        'set KUBECONFIG to a readable kubeconfig of the management cluster',
      );
    }
  }
  throw new AgentError(
    'no management cluster configuration: not in a pod and KUBECONFIG is not set',
    'run the agent as the crc-agent Job, or set KUBECONFIG for a local run',
  );
}
