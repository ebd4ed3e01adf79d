import { X509Certificate } from 'node:crypto';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Desired } from '../../../kube/objects.js';
import type { Secret } from '../../../kube/workloads.js';
import type { CrcIdentity } from '../../../../contracts/crc-identity.js';
import {
  createCrcIdentity,
  IDENTITY_FILES,
  validateCrcIdentity,
} from '../../../../contracts/crc-identity.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import type { Instance } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { commonLabels } from '../core/naming.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { identitySecretName } from './crc-naming.js';
import { controllerReference } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

/*
 * The `<instance>-crc-identity` Secret (docs/reference/generated-objects.md#secrets): made once per
 * instance, never rotated, and checked with the very rules the agent applies before it uses it (one
 * implementation, shared with crc-agent), so a Secret the agent would refuse is never handed to it.
 */

export function buildIdentitySecret(
  instance: Instance,
  hostname: string,
  now: Date,
): Desired<Secret> {
  const identity = createCrcIdentity(hostname, now);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: identitySecretName(instance.metadata.name),
      namespace: instance.metadata.namespace,
      labels: commonLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    type: 'Opaque',
    data: Object.fromEntries(
      (Object.keys(IDENTITY_FILES) as (keyof CrcIdentity)[]).map((part) => [
        IDENTITY_FILES[part],
        encodeBase64(identity[part]),
      ]),
    ),
  };
}

export function identityOf(secret: Secret): CrcIdentity {
  const part = (key: keyof CrcIdentity): string => decodeBase64(secret.data?.[IDENTITY_FILES[key]]);
  return {
    clientCaPem: part('clientCaPem'),
    clientCertPem: part('clientCertPem'),
    clientKeyPem: part('clientKeyPem'),
    servingCertPem: part('servingCertPem'),
    servingKeyPem: part('servingKeyPem'),
  };
}

/** Throws (IdentityError) when the Secret's identity does not serve `hostname` or is broken. */
export function validateIdentitySecret(secret: Secret, hostname: string, now: Date): void {
  validateCrcIdentity(identityOf(secret), hostname, now);
}

/** The one DNS name of the serving certificate: the host the identity was made for. */
export function identityHostname(secret: Secret): string | undefined {
  try {
    const cert = new X509Certificate(identityOf(secret).servingCertPem);
    const names = (cert.subjectAltName ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name.startsWith('DNS:'));
    return names.length === 1 ? names[0]!.slice(4) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identity Secret for the host: made once, then only checked
 * (docs/reference/generated-objects.md#secrets).
 */
export async function ensureIdentitySecret(
  objects: InstanceObjects,
  hostname: string,
  now: Date,
): Promise<void> {
  const name = identitySecretName(objects.instance.metadata.name);
  const existing = await objects.current<Secret>(SECRETS, name);
  if (!existing) {
    await objects.ensure(SECRETS, buildIdentitySecret(objects.instance, hostname, now));
    return;
  }
  if (!objects.controls(existing))
    throw new OwnershipConflictError(
      `CRC identity Secret ${objects.namespace}/${name} is not controlled by this ClusterInstance`,
    );
  try {
    validateIdentitySecret(existing, hostname, now);
  } catch (error) {
    throw new Error(
      `CRC identity Secret ${objects.namespace}/${name} is not usable: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
