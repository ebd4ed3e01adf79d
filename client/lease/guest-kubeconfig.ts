import type { ClusterLease } from '../api/resources.js';
import { SECRETS } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isForbidden } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import { KUBECONFIG_KEY, kubeconfigSecretName } from '../../contracts/names.js';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

/** How long a refused read of the Secret is tried again: the lease's RoleBinding may lag. */
const ACCESS_GRANT_WAIT_MS = 10_000;

/**
 * The Secret as the lease's subjects may read it. The operator grants that access before it
 * binds the lease, but an apiserver's authorizer sees a new RoleBinding a moment later.
 */
async function readSecret(
  api: ApiClient,
  name: string,
  namespace: string | undefined,
): Promise<SecretObject> {
  const deadline = Date.now() + ACCESS_GRANT_WAIT_MS;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      return await api.get<SecretObject>(SECRETS, name, namespace);
    } catch (error) {
      if (!isForbidden(error) || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The guest kubeconfig the operator copied into the lease's Secret. */
export async function readGuestKubeconfig(api: ApiClient, lease: ClusterLease): Promise<string> {
  const { name, namespace } = lease.metadata!;
  const secretName = lease.status?.kubeconfigSecretRef?.name ?? kubeconfigSecretName(name!);
  const secret = await readSecret(api, secretName, namespace);
  const data = secret.data?.[KUBECONFIG_KEY];
  if (!data) throw new Error(`Secret ${namespace}/${secretName} has no "${KUBECONFIG_KEY}" key`);
  return Buffer.from(data, 'base64').toString();
}
