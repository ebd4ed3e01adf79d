import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import {
  certificateHostname,
  issueKasServingCert,
  kasServingCertUsable,
} from './kas-serving-cert.js';

const HOST = 'api-dev-0-0123456789abcdef.apps.example.test';

describe('KAS serving certificate', () => {
  const now = Date.parse('2026-01-10T12:00:00Z');
  const cert = issueKasServingCert(HOST, now);

  it('is a self-signed ECDSA P-256 CA for exactly the host name, valid for 87600 hours from 5 minutes ago', () => {
    const x509 = new X509Certificate(cert.certificatePem);
    expect(x509.subject).toBe(`CN=${HOST}`);
    expect(x509.issuer).toBe(`CN=${HOST}`);
    expect(x509.subjectAltName).toBe(`DNS:${HOST}`);
    expect(x509.ca).toBe(true);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(x509.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(Date.parse(x509.validFrom)).toBe(now - 5 * 60_000);
    expect(Date.parse(x509.validTo)).toBe(now - 5 * 60_000 + 87_600 * 3_600_000);
    expect(cert.keyPem).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(certificateHostname(cert.certificatePem)).toBe(HOST);
  });

  it('serves TLS that a client verifies with the certificate as its CA', () => {
    expect(() =>
      tls.createSecureContext({ cert: cert.certificatePem, key: cert.keyPem }),
    ).not.toThrow();
    const x509 = new X509Certificate(cert.certificatePem);
    expect(x509.checkHost(HOST)).toBe(HOST);
  });

  it.each([
    ['a fresh certificate', HOST, now, true],
    ['another host name', `x${HOST}`, now, false],
    ['within 30 days of expiry', HOST, now + 87_600 * 3_600_000 - 29 * 86_400_000, false],
  ])('is usable or not: %s', (_, host, at, usable) => {
    expect(kasServingCertUsable(cert, host, at)).toBe(usable);
  });

  it('is not usable when garbled or when the key does not match', () => {
    expect(kasServingCertUsable({ certificatePem: 'x', keyPem: cert.keyPem }, HOST, now)).toBe(
      false,
    );
    const other = issueKasServingCert(HOST, now);
    expect(kasServingCertUsable({ ...cert, keyPem: other.keyPem }, HOST, now)).toBe(false);
  });
});
