import { isForbidden, isNotFound } from '../../client/kube/api-error.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { KubeClient } from '../kube/kube-client.js';
import type { KubeObject } from '../kube/objects.js';
import { ExchangeRefusal } from './exchange-refusal.js';

/** The TokenRequest API's shortest lifetime. */
export const MIN_TOKEN_SECONDS = 600;

type TokenRequest = KubeObject & {
  spec: { audiences: string[]; expirationSeconds: number };
  status?: { token?: string; expirationTimestamp?: string };
};

export interface IssuedToken {
  token: string;
  expirationTimestamp: string;
}

/** The token subresource of one ServiceAccount, addressed as a collection for create. */
function tokenSubresource(serviceAccount: string) {
  return resourceType(
    'v1',
    'TokenRequest',
    `serviceaccounts/${encodeURIComponent(serviceAccount)}/token`,
  );
}

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
    const answer = await client.submit<TokenRequest>(tokenSubresource(serviceAccount), {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { namespace },
      spec: { audiences: [], expirationSeconds: Math.max(MIN_TOKEN_SECONDS, Math.floor(seconds)) },
    });
    const { token, expirationTimestamp } = answer.status ?? {};
    if (!token || !expirationTimestamp) throw new Error('the TokenRequest answer holds no token');
    return { token, expirationTimestamp };
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
