import type { JwtAuthenticator } from '../control-plane/jwt-authenticator.js';

/** The audience the local control plane's JWT authenticator asks of a token. */
export const DIRECT_AUDIENCE = 'guestcluster-direct';

/**
 * The local control plane's JWT authenticator for a local issuer, configured as
 * docs/ci-identities.md#direct-authentication configures one for GitHub: a token authenticates
 * as `ci:<sub>` in the group `ci:<repository>`, which RBAC binds, and one without a repository
 * claim does not authenticate at all.
 */
export function localJwtAuthenticator(issuer: { url: string; caPem: string }): JwtAuthenticator {
  return {
    issuerUrl: issuer.url,
    caPem: issuer.caPem,
    audience: DIRECT_AUDIENCE,
    username: "'ci:' + claims.sub",
    groups: "['ci:' + claims.repository]",
    claimRules: [
      {
        expression: "has(claims.repository) && claims.repository != ''",
        message: 'the token names no repository',
      },
    ],
  };
}
