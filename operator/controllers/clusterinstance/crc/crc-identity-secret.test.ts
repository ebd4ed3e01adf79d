import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import {
  buildIdentitySecret,
  identityHostname,
  identityOf,
  validateIdentitySecret,
} from './crc-identity-secret.js';

const HOST = 'api-pool-0-0123456789abcdef.apps.example.test';
const NOW = new Date('2026-01-01T00:00:00Z');
const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
};

describe('the crc identity Secret', () => {
  const secret = buildIdentitySecret(instance, HOST, NOW);

  it('holds the five PEM files, with common labels and the instance as controller', () => {
    expect(Object.keys(secret.data!).sort()).toEqual([
      'client-ca.crt',
      'client.crt',
      'client.key',
      'serving.crt',
      'serving.key',
    ]);
    expect(secret.metadata).toMatchObject({
      name: 'pool-0-crc-identity',
      namespace: 'ci',
      labels: {
        'opdev.io/managed-by': 'guestcluster-operator',
        'opdev.io/cluster-instance': 'pool-0',
      },
      ownerReferences: [{ kind: 'ClusterInstance', uid: 'uid-1', controller: true }],
    });
    expect(secret.type).toBe('Opaque');
  });

  it('is issued as the spec says: client CA, system:admin client, self-signed serving cert', () => {
    const identity = identityOf(secret);
    const ca = new X509Certificate(identity.clientCaPem);
    const client = new X509Certificate(identity.clientCertPem);
    const serving = new X509Certificate(identity.servingCertPem);
    expect(ca.subject).toBe('CN=admin-kubeconfig-signer-custom\nOU=openshift');
    expect(ca.ca).toBe(true);
    expect(client.subject).toBe('CN=system:admin\nOU=system:masters');
    expect(client.checkIssued(ca)).toBe(true);
    expect(serving.subjectAltName).toBe(`DNS:${HOST}`);
    expect(serving.verify(serving.publicKey)).toBe(true);
    expect(new Date(serving.validTo).getTime() - NOW.getTime()).toBe(87_600 * 3_600_000);
    expect(identity.clientKeyPem).toContain('BEGIN RSA PRIVATE KEY');
    expect(identityHostname(secret)).toBe(HOST);
  });

  it('validates for its host and refuses another host, a swapped key or an expired one', () => {
    expect(() => validateIdentitySecret(secret, HOST, NOW)).not.toThrow();
    expect(() => validateIdentitySecret(secret, 'api-other.apps.example.test', NOW)).toThrow(
      'invalid serving certificate',
    );
    const other = buildIdentitySecret(instance, HOST, NOW);
    const swapped = {
      ...secret,
      data: { ...secret.data, 'client.key': other.data!['client.key']! },
    };
    expect(() => validateIdentitySecret(swapped, HOST, NOW)).toThrow('invalid client key');
    const later = new Date(NOW.getTime() + 87_601 * 3_600_000);
    expect(() => validateIdentitySecret(secret, HOST, later)).toThrow('not valid now');
  });

  it('has no host when its serving certificate is unreadable', () => {
    expect(identityHostname({ data: { 'serving.crt': 'Z2FyYmFnZQ==' } })).toBeUndefined();
  });
});
