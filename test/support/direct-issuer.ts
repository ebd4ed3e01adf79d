import { readFile } from 'node:fs/promises';
import type { JWTPayload } from 'jose';
import { importJWK } from 'jose';
import type { ExportedSigningKey, MintOptions } from '../../dev/oidc/oidc-issuer.js';
import { signIdToken } from '../../dev/oidc/oidc-issuer.js';
import { testEnv } from './test-env.js';

/**
 * A token of the local issuer the run's control plane authenticates directly
 * (dev/oidc/direct-authentication.ts), minted with its key as the issuer would mint it.
 */
export async function mintDirectToken(
  claims: JWTPayload,
  options: Pick<MintOptions, 'lifetimeSeconds' | 'issuedAt'> = {},
): Promise<string> {
  const key = JSON.parse(await readFile(testEnv('directIssuerKey'), 'utf8')) as ExportedSigningKey;
  const privateKey = await importJWK(key.privateJwk, key.alg);
  return signIdToken({ kid: key.kid, alg: key.alg, privateKey }, key.issuerUrl, claims, options);
}
