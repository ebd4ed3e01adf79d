import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';

/**
 * A JWT authenticator of kube-apiserver's structured authentication configuration
 * (`--authentication-config`, AuthenticationConfiguration apiserver.config.k8s.io/v1): the
 * apiserver accepts an issuer's ID tokens as they are, reading its discovery document and JWKS
 * itself. The claim mappings and validation rules are CEL, evaluated by the apiserver
 * (docs/ci-identities.md#direct-authentication).
 */
export interface JwtAuthenticator {
  /** The issuer's URL, exactly as its tokens' `iss` (https). */
  issuerUrl: string;
  /** The CA the apiserver verifies the issuer's serving certificate with (PEM). */
  caPem: string;
  /** The `aud` a token must name. */
  audience: string;
  /** CEL over `claims`: the user name a token authenticates as. */
  username: string;
  /** CEL over `claims`: the groups (a list of strings). */
  groups?: string;
  /** CEL over `claims` that must hold for a token to authenticate, with the message if not. */
  claimRules?: { expression: string; message: string }[];
}

export const AUTHENTICATION_CONFIG_FILE = 'authentication-config.yaml';

/** Writes the configuration into the control plane's state folder; answers the flag to pass. */
export async function writeAuthenticationConfig(
  stateDir: string,
  authenticators: readonly JwtAuthenticator[],
): Promise<string> {
  const file = path.join(stateDir, AUTHENTICATION_CONFIG_FILE);
  const config = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: authenticators.map((a) => ({
      issuer: { url: a.issuerUrl, audiences: [a.audience], certificateAuthority: a.caPem },
      claimValidationRules: a.claimRules ?? [],
      claimMappings: {
        username: { expression: a.username },
        ...(a.groups ? { groups: { expression: a.groups } } : {}),
      },
      // Nobody outside the cluster may pass for one of its own identities.
      userValidationRules: [
        {
          expression: "!user.username.startsWith('system:')",
          message: 'a token may not authenticate as a system: user',
        },
      ],
    })),
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
  return `--authentication-config=${file}`;
}
