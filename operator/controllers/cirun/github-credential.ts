import { createPrivateKey } from 'node:crypto';
import type { KubeObject } from '../../kube/objects.js';

/** The operator's GitHub identity: a token, or a GitHub App installation. */
export type GitHubCredential =
  { token: string } | { appId: string; privateKey: string; installationId: number };

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

/** The keys of the credentials Secret (docs/reference/kinds.md#release-when-the-github-job-completed). */
export const CREDENTIAL_KEYS = {
  token: 'token',
  appId: 'app-id',
  privateKey: 'private-key',
  installationId: 'installation-id',
} as const;

/**
 * The credential a Secret holds, or why it holds none (never echoing a value). An App's private
 * key is parsed here, so that a broken key is reported as such rather than as a failed request.
 */
export function credentialFromSecret(
  secret: SecretObject | undefined,
  name: string,
): GitHubCredential | { invalid: string } {
  if (!secret) return { invalid: `Secret ${name} does not exist in the operator namespace` };
  const value = (key: string): string =>
    Buffer.from(secret.data?.[key] ?? '', 'base64')
      .toString('utf8')
      .trim();
  const token = value(CREDENTIAL_KEYS.token);
  if (token) return { token };
  const appId = value(CREDENTIAL_KEYS.appId);
  const privateKey = value(CREDENTIAL_KEYS.privateKey);
  const installation = value(CREDENTIAL_KEYS.installationId);
  const keys = Object.values(CREDENTIAL_KEYS).join(', ');
  if (!appId && !privateKey && !installation)
    return { invalid: `Secret ${name} has none of the keys ${keys}` };
  if (!/^\d+$/.test(appId))
    return { invalid: `Secret ${name}: ${CREDENTIAL_KEYS.appId} must be the App's numeric id` };
  if (!/^\d+$/.test(installation))
    return {
      invalid: `Secret ${name}: ${CREDENTIAL_KEYS.installationId} must be a numeric installation id`,
    };
  try {
    createPrivateKey(privateKey);
  } catch {
    return { invalid: `Secret ${name}: ${CREDENTIAL_KEYS.privateKey} is not a PEM private key` };
  }
  return { appId, privateKey, installationId: Number(installation) };
}
