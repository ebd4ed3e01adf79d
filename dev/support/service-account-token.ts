import type { ApiClient } from '../../client/kube/api-client.js';
import type { TokenRequest } from '../../client/kube/token-request.js';
import { issuedToken, tokenRequest, tokenSubresource } from '../../client/kube/token-request.js';

/** A token of a ServiceAccount from the TokenRequest API (what a kubelet projects into a pod). */
export async function serviceAccountToken(
  api: ApiClient,
  namespace: string,
  serviceAccount: string,
  expirationSeconds: number,
): Promise<string> {
  const answer = await api.create<TokenRequest>(
    tokenSubresource(serviceAccount),
    tokenRequest(namespace, expirationSeconds),
  );
  return issuedToken(answer).token;
}
