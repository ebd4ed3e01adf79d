import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import forge from 'node-forge';
import { dataUrlBytes, ignitionCertificateNotBefore } from './ignition-certificate.js';

function certificatePem(notBefore: Date): string {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 1024 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = new Date(notBefore.getTime() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'test' }]);
  cert.setIssuer([{ name: 'commonName', value: 'test' }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

describe('ignitionCertificateNotBefore', () => {
  it('finds the earliest NotBefore under /opt/openshift/tls, base64, gzip or percent-encoded', () => {
    const early = new Date('2026-11-30T18:00:00Z');
    const late = new Date('2026-12-01T18:00:00Z');
    const ignition = JSON.stringify({
      storage: {
        files: [
          {
            path: '/opt/openshift/tls/a.crt',
            contents: {
              source: `data:;base64,${Buffer.from(certificatePem(late)).toString('base64')}`,
            },
          },
          {
            path: '/opt/openshift/tls/b.crt',
            contents: {
              compression: 'gzip',
              source: `data:;base64,${gzipSync(certificatePem(early)).toString('base64')}`,
            },
          },
          {
            path: '/etc/other.crt',
            contents: { source: `data:,${encodeURIComponent(certificatePem(new Date(0)))}` },
          },
          { path: '/opt/openshift/tls/c.key', contents: { source: 'data:,x' } },
        ],
      },
    });
    expect(ignitionCertificateNotBefore(ignition)).toEqual({
      file: '/opt/openshift/tls/b.crt',
      notBefore: early,
    });
  });

  it('is undefined for an ignition without certificates', () => {
    expect(ignitionCertificateNotBefore('{"ignition":{"version":"3.2.0"}}')).toBeUndefined();
    expect(dataUrlBytes('data:,a%20b')?.toString()).toBe('a b');
  });
});
