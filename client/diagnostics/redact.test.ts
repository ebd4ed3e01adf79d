import { describe, expect, it } from '@jest/globals';
import { redact } from './redact.js';

describe('redact', () => {
  it.each([
    [
      'a PEM block',
      'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIB\n-----END RSA PRIVATE KEY-----\nend',
      'MIIEpQIB',
    ],
    ['a PEM block cut off', 'x -----BEGIN CERTIFICATE-----\nMIIBcut', 'MIIBcut'],
    ['a bearer token', 'Authorization: Bearer abc.DEF-123_xyz=', 'abc.DEF-123_xyz'],
    ['a JSON Web Token', 'token eyJhbGciOi.eyJzdWIiOiJ4.c2lnbmF0dXJl', 'eyJzdWIiOiJ4'],
    ['a kubeconfig key', '    client-key-data: TFMwdExTMUNSVWRKVGlC', 'TFMwdExTMUNSVWRKVGlC'],
    ['a docker config auth', '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}', 'dXNlcjpwYXNz'],
    ['a password field', 'password=hunter2, next', 'hunter2'],
  ])('removes %s', (_, text, secret) => {
    const result = redact(text);
    expect(result).not.toContain(secret);
    expect(result).toContain('redacted');
  });

  it('leaves ordinary log lines alone', () => {
    const line = 'Waiting for the token controller; 3 nodes Ready, kubelet v1.29.5';
    expect(redact(line)).toBe(line);
  });
});
