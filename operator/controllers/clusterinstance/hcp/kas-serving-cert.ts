import { X509Certificate, createPrivateKey } from 'node:crypto';
import { issueSelfSignedCertificate } from '../../../kube/self-signed-certificate.js';

/**
 * PEM certificate and SEC1 `EC PRIVATE KEY` of the hosted API's serving certificate
 * (docs/reference/generated-objects.md#kas-serving-certificate).
 */
export interface KasServingCert {
  certificatePem: string;
  keyPem: string;
}

const HOUR_MS = 3_600_000;
const RENEW_BEFORE_MS = 30 * 24 * HOUR_MS;

/** The hosted API's serving certificate (a self-signed one, see self-signed-certificate.ts). */
export function issueKasServingCert(hostname: string, now: number): KasServingCert {
  return issueSelfSignedCertificate(hostname, now);
}

/**
 * Whether an existing certificate can stay
 * (docs/reference/generated-objects.md#kas-serving-certificate): it parses, matches its key, has
 * exactly the one DNS SAN `hostname`, and is more than 30 days from expiry.
 */
export function kasServingCertUsable(
  cert: Partial<KasServingCert>,
  hostname: string,
  now: number,
): boolean {
  if (!cert.certificatePem || !cert.keyPem) return false;
  try {
    const x509 = new X509Certificate(cert.certificatePem);
    return (
      x509.subjectAltName === `DNS:${hostname}` &&
      x509.checkPrivateKey(createPrivateKey(cert.keyPem)) &&
      now < Date.parse(x509.validTo) - RENEW_BEFORE_MS
    );
  } catch {
    return false;
  }
}

/** The one DNS SAN of a certificate, if it has exactly one. */
export function certificateHostname(certificatePem: string): string | undefined {
  try {
    const names = new X509Certificate(certificatePem).subjectAltName?.split(', ') ?? [];
    return names.length === 1 && names[0]!.startsWith('DNS:') ? names[0]!.slice(4) : undefined;
  } catch {
    return undefined;
  }
}
