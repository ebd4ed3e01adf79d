import { readFileSync } from 'node:fs';
import { ApiClient } from '../client/kube/api-client.js';
import { clusterAccess, inClusterContext } from '../client/kube/cluster-access.js';
import type { KubeconfigContext } from '../client/kube/kubeconfig.js';
import { parseKubeconfig } from '../client/kube/kubeconfig.js';
import { AgentError, errorMessage } from './errors.js';

/**
 * The management cluster, through the client the operator uses: in-cluster configuration first
 * (the Job's ServiceAccount), then KUBECONFIG for local runs.
 */
export function managementClient(env: Record<string, string | undefined>): ApiClient {
  return new ApiClient(clusterAccess(managementContext(env)));
}

function managementContext(env: Record<string, string | undefined>): KubeconfigContext {
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    try {
      return inClusterContext(env);
    } catch {
      // Fall through to KUBECONFIG.
    }
  }
  if (env.KUBECONFIG) {
    try {
      return parseKubeconfig(readFileSync(env.KUBECONFIG, 'utf8'));
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
