import type { KubeObject } from './objects.js';
import type { ResourceType } from './resource-type.js';
import { resourceType } from './resource-type.js';

/** The TokenRequest API's shortest lifetime. */
export const MIN_TOKEN_SECONDS = 600;

/** A TokenRequest: a ServiceAccount token for the apiserver's own audience. */
export type TokenRequest = KubeObject & {
  spec: { audiences: string[]; expirationSeconds: number };
  status?: { token?: string; expirationTimestamp?: string };
};

export interface IssuedToken {
  token: string;
  expirationTimestamp: string;
}

/** The token subresource of one ServiceAccount, addressed as a collection to create in. */
export function tokenSubresource(serviceAccount: string): ResourceType {
  return resourceType(
    'v1',
    'TokenRequest',
    `serviceaccounts/${encodeURIComponent(serviceAccount)}/token`,
  );
}

/** A request for a token of `seconds` (at least the API's minimum), in `namespace`. */
export function tokenRequest(namespace: string, seconds: number): TokenRequest {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { namespace },
    spec: { audiences: [], expirationSeconds: Math.max(MIN_TOKEN_SECONDS, Math.floor(seconds)) },
  };
}

/** The token the apiserver answered with. */
export function issuedToken(answer: TokenRequest): IssuedToken {
  const { token, expirationTimestamp } = answer.status ?? {};
  if (!token || !expirationTimestamp) throw new Error('the TokenRequest answer holds no token');
  return { token, expirationTimestamp };
}
