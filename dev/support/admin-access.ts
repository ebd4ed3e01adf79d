import { readFileSync } from 'node:fs';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { clusterAccess } from '../../client/kube/cluster-access.js';
import { parseKubeconfig } from '../../client/kube/kubeconfig.js';

/**
 * Access to a control plane of the local environment or of a test, by its admin kubeconfig, read
 * with our own reader as the product reads its own. client-node's KubeConfig would do the same,
 * but loading client-node costs every test file that does about a quarter of a second of CPU
 * (its 870 modules), in a test run bound by its two cores.
 */
export interface AdminAccess extends ClusterAccess {
  /** The kubeconfig's YAML, for what takes a kubeconfig (kubectl, client-node in a test). */
  readonly kubeconfig: string;
  /** The server and its CA (base64 of the PEM, as a kubeconfig holds it). */
  getCurrentCluster(): { server: string; caData?: string };
}

export function adminAccessFromText(kubeconfig: string): AdminAccess {
  const context = parseKubeconfig(kubeconfig);
  const caData = context.ca ? Buffer.from(context.ca).toString('base64') : undefined;
  return {
    ...clusterAccess(context),
    kubeconfig,
    getCurrentCluster: () => ({ server: context.server, ...(caData ? { caData } : {}) }),
  };
}

export function adminAccessFromFile(kubeconfigPath: string): AdminAccess {
  return adminAccessFromText(readFileSync(kubeconfigPath, 'utf8'));
}
