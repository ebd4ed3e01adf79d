import { describe, expect, test } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { createCrcIdentity, validateCrcIdentity } from './crc-identity.js';

const HOST = 'api-crc-1-0123456789abcdef.apps.example.test';
const identity = createCrcIdentity(HOST);

describe('CRC identity', () => {
  test('a fresh identity validates for its host name', () => {
    expect(() => validateCrcIdentity(identity, HOST)).not.toThrow();
  });

  test('has the subjects and extensions of the spec', () => {
    const client = new X509Certificate(identity.clientCertPem);
    expect(client.subject).toBe('CN=system:admin\nOU=system:masters');
    expect(client.ca).toBe(false);
    const serving = new X509Certificate(identity.servingCertPem);
    expect([serving.subject, serving.subjectAltName, serving.ca]).toEqual([
      `CN=${HOST}`,
      `DNS:${HOST}`,
      true,
    ]);
    expect(new X509Certificate(identity.clientCaPem).subject).toBe(
      'CN=admin-kubeconfig-signer-custom\nOU=openshift',
    );
    expect(identity.clientKeyPem).toContain('-----BEGIN RSA PRIVATE KEY-----');
  });

  test('fails for another host name, an empty one, a garbage key or a foreign client CA', () => {
    expect(() => validateCrcIdentity(identity, 'api-other.example.test')).toThrow(
      'invalid serving certificate',
    );
    expect(() => validateCrcIdentity(identity, '')).toThrow('hostname must not be empty');
    expect(() => validateCrcIdentity({ ...identity, clientKeyPem: 'garbage' }, HOST)).toThrow(
      'invalid client key',
    );
    const other = createCrcIdentity(HOST);
    expect(() =>
      validateCrcIdentity({ ...identity, clientCaPem: other.clientCaPem }, HOST),
    ).toThrow('not signed by the client CA');
    expect(() =>
      validateCrcIdentity({ ...identity, servingKeyPem: other.servingKeyPem }, HOST),
    ).toThrow('invalid serving key: does not match');
  });

  test('is valid only within its validity window', () => {
    const later = new Date(Date.now() + 3651 * 86_400_000);
    expect(() => validateCrcIdentity(identity, HOST, later)).toThrow('not valid now');
  });
});
