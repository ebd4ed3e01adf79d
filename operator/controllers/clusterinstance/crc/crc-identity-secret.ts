import { X509Certificate } from 'node:crypto';
import type { ClusterInstance } from '../../../api/resources.js';
import type { Secret } from '../../../kube/workloads.js';
import type { CrcIdentity } from '../../../../crc-agent/crc-identity.js';
import {
  createCrcIdentity,
  IDENTITY_FILES,
  validateCrcIdentity,
} from '../../../../crc-agent/crc-identity.js';
import { instanceOwnerReference } from '../hcp/hcp-ownership.js';
import { commonLabels } from './crc-builders.js';
import { identitySecretName } from './crc-naming.js';

/*
 * The `<instance>-crc-identity` Secret (spec §3.12): made once per instance, never rotated, and
 * checked with the very rules the agent applies before it uses it (one implementation, shared
 * with crc-agent), so a Secret the agent would refuse is never handed to it.
 */

const encode = (text: string): string => Buffer.from(text).toString('base64');
const decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString('utf8');

export function buildIdentitySecret(
  instance: ClusterInstance,
  hostname: string,
  now: Date,
): Secret {
  const identity = createCrcIdentity(hostname, now);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: identitySecretName(instance.metadata!.name!),
      namespace: instance.metadata!.namespace!,
      labels: commonLabels(instance),
      ownerReferences: [instanceOwnerReference(instance)],
    },
    type: 'Opaque',
    data: Object.fromEntries(
      (Object.keys(IDENTITY_FILES) as (keyof CrcIdentity)[]).map((part) => [
        IDENTITY_FILES[part],
        encode(identity[part]),
      ]),
    ),
  };
}

export function identityOf(secret: Secret): CrcIdentity {
  const part = (key: keyof CrcIdentity): string => decode(secret.data?.[IDENTITY_FILES[key]]);
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
