import { isForbidden, isNotFound } from '../../client/kube/api-error.js';
import type { IssuedToken, TokenRequest } from '../../client/kube/token-request.js';
import { issuedToken, tokenRequest, tokenSubresource } from '../../client/kube/token-request.js';
import type { KubeClient } from '../kube/kube-client.js';
import { ExchangeRefusal } from './exchange-refusal.js';

/**
 * A token of the ServiceAccount through the TokenRequest API, for the apiserver's own audience
 * and `seconds` long. The operator may do this only where an admin granted it (a Role on
 * serviceaccounts/token for that ServiceAccount, docs/permissions.md#ci-token-exchange): a
 * refusal says which grant is missing.
 */
export async function requestServiceAccountToken(
  client: KubeClient,
  target: { namespace: string; serviceAccount: string },
  seconds: number,
): Promise<IssuedToken> {
  const { namespace, serviceAccount } = target;
  try {
    const answer = await client.submit<TokenRequest>(
      tokenSubresource(serviceAccount),
      tokenRequest(namespace, seconds),
    );
    return issuedToken(answer);
  } catch (error) {
    if (isForbidden(error))
      throw new ExchangeRefusal(
        'GrantMissing',
        `The operator may not create tokens of ServiceAccount ${namespace}/${serviceAccount}: grant it create on serviceaccounts/token for it (docs/permissions.md#ci-token-exchange)`,
      );
    if (isNotFound(error))
      throw new ExchangeRefusal(
        'ServiceAccountMissing',
        `ServiceAccount ${namespace}/${serviceAccount} does not exist`,
      );
    throw error;
  }
}
