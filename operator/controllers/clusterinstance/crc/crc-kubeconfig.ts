import { SECRETS } from '../../../../client/api/resources.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { KubeconfigRejectedError, readStrictKubeconfig } from '../../../kube/strict-kubeconfig.js';
import type { Secret } from '../../../kube/workloads.js';
import { identityOf, validateIdentitySecret } from './crc-identity-secret.js';
import { handoffSecretName, identitySecretName } from './crc-naming.js';
import type { InstanceObjects } from '../core/instance-objects.js';

/**
 * How the operator reaches a crc guest's API, from what it holds itself: the identity it minted
 * for the instance (its serving certificate is the CA, its client certificate the credential)
 * and the recorded endpoint. No kubeconfig from a Secret goes into it.
 */
export async function crcGuestAccess(
  objects: InstanceObjects,
  hostname: string,
  now: Date,
): Promise<GuestAccess | { unavailable: string }> {
  const name = identitySecretName(objects.instance.metadata.name);
  const where = `CRC identity Secret ${objects.namespace}/${name}`;
  const secret = await objects.current<Secret>(SECRETS, name);
  if (!secret) return { unavailable: `${where} is missing` };
  if (!objects.controls(secret))
    return { unavailable: `${where} is not controlled by this ClusterInstance` };
  try {
    validateIdentitySecret(secret, hostname, now);
  } catch (error) {
    return { unavailable: `${where} is not usable: ${(error as Error).message}` };
  }
  const identity = identityOf(secret);
  return {
    server: `https://${hostname}`,
    ca: identity.servingCertPem,
    credentials: { cert: identity.clientCertPem, key: identity.clientKeyPem },
  };
}

/**
 * Why the agent's handoff kubeconfig is refused (strict reading: one cluster, user and context,
 * the instance's endpoint, the CA the operator minted, inline credentials only), as a message
 * naming the Secret and the field; undefined when it is acceptable. Nothing of it is used: the
 * published kubeconfig is written from `access`.
 */
export function handoffRejection(
  objects: InstanceObjects,
  vmiUid: string,
  kubeconfig: string,
  access: GuestAccess,
): string | undefined {
  try {
    readStrictKubeconfig(kubeconfig, { servers: [access.server], ca: access.ca });
    return undefined;
  } catch (error) {
    if (!(error instanceof KubeconfigRejectedError)) throw error;
    const secret = handoffSecretName(objects.instance.metadata.name, vmiUid);
    return `kubeconfig of handoff Secret ${objects.namespace}/${secret} was refused: ${error.message}; no request was sent with it, and the instance stays not Ready (delete the ClusterInstance to have its pool replace it)`;
  }
}
