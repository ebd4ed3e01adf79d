import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';

interface TokenRequest extends KubeObject {
  spec: { audiences: string[]; expirationSeconds: number };
  status?: { token?: string };
}

/**
 * A token of a ServiceAccount from the TokenRequest API (what a kubelet projects into a pod): a
 * subresource of the ServiceAccount, created by a POST at its path.
 */
export async function serviceAccountToken(
  api: ApiClient,
  namespace: string,
  serviceAccount: string,
  expirationSeconds: number,
): Promise<string> {
  const at = {
    apiVersion: 'v1',
    kind: 'TokenRequest',
    plural: `serviceaccounts/${serviceAccount}/token`,
    namespaced: true,
  };
  const request = await api.create<TokenRequest>(at, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { namespace },
    spec: { audiences: [], expirationSeconds },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`no token in the TokenRequest of ${namespace}/${serviceAccount}`);
  return token;
}
