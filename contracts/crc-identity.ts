import { createPrivateKey, X509Certificate } from 'node:crypto';
import { issueCertificate } from './certificates.js';

/**
 * The five files of the `<instance>-crc-identity` Secret, as PEM text
 * (docs/reference/agent-protocol.md#identity-secret).
 */
export interface CrcIdentity {
  clientCaPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  servingCertPem: string;
  servingKeyPem: string;
}

/** Secret data keys (and mounted file names) of each identity part. */
export const IDENTITY_FILES: Record<keyof CrcIdentity, string> = {
  clientCaPem: 'client-ca.crt',
  clientCertPem: 'client.crt',
  clientKeyPem: 'client.key',
  servingCertPem: 'serving.crt',
  servingKeyPem: 'serving.key',
};

const VALIDITY_DAYS = 3650;
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/**
 * Creates a CRC identity for the external API hostname: a client CA (its key is discarded), the
 * `system:admin` client certificate it signs, and a self-signed serving certificate for the host.
 */
export function createCrcIdentity(hostname: string, now: Date = new Date()): CrcIdentity {
  const clientCa = issueCertificate({
    commonName: 'admin-kubeconfig-signer-custom',
    organizationalUnits: ['openshift'],
    isCa: true,
    keyCertSign: true,
    validityDays: VALIDITY_DAYS,
    notBefore: now,
  });
  const client = issueCertificate({
    commonName: 'system:admin',
    organizationalUnits: ['system:masters'],
    issuer: clientCa,
    isCa: false,
    clientAuth: true,
    validityDays: VALIDITY_DAYS,
    notBefore: now,
  });
  const serving = issueCertificate({
    commonName: hostname,
    isCa: true,
    keyCertSign: true,
    serverAuth: true,
    dnsNames: [hostname],
    validityDays: VALIDITY_DAYS,
    notBefore: now,
  });
  return {
    clientCaPem: clientCa.certificatePem,
    clientCertPem: client.certificatePem,
    clientKeyPem: client.keyPem,
    servingCertPem: serving.certificatePem,
    servingKeyPem: serving.keyPem,
  };
}

export class IdentityError extends Error {
  override name = 'IdentityError';
}

function parseCertificate(pem: string, what: string, now: Date): X509Certificate {
  let cert: X509Certificate;
  try {
    if (!/^-----BEGIN CERTIFICATE-----/m.test(pem)) throw new Error('no CERTIFICATE block');
    cert = new X509Certificate(pem);
  } catch {
    throw new IdentityError(`invalid ${what}: not a PEM CERTIFICATE`);
  }
  if (now < new Date(cert.validFrom) || now >= new Date(cert.validTo))
    throw new IdentityError(`invalid ${what}: not valid now (${cert.validFrom} - ${cert.validTo})`);
  return cert;
}

function subjectValues(cert: X509Certificate, attribute: string): string[] {
  return cert.subject
    .split('\n')
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
}

function keyMatches(cert: X509Certificate, keyPem: string, what: string): boolean {
  try {
    if (!keyPem.includes('-----BEGIN RSA PRIVATE KEY-----')) throw new Error('not PKCS#1');
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    throw new IdentityError(`invalid ${what}: not a PKCS#1 RSA private key`);
  }
}

function checkKey(cert: X509Certificate, keyPem: string, what: string): void {
  if (!keyMatches(cert, keyPem, what))
    throw new IdentityError(`invalid ${what}: does not match its certificate`);
}

function dnsNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.startsWith('DNS:'))
    .map((name) => name.slice(4));
}

function validateClient(identity: CrcIdentity, now: Date): void {
  const ca = parseCertificate(identity.clientCaPem, 'client CA', now);
  if (!ca.ca) throw new IdentityError('invalid client CA: not a CA certificate');
  const client = parseCertificate(identity.clientCertPem, 'client certificate', now);
  if (subjectValues(client, 'CN').join() !== 'system:admin')
    throw new IdentityError('invalid client certificate: CN is not system:admin');
  if (!subjectValues(client, 'OU').includes('system:masters'))
    throw new IdentityError('invalid client certificate: OU does not include system:masters');
  if (!(client.keyUsage ?? []).includes(CLIENT_AUTH))
    throw new IdentityError('invalid client certificate: no clientAuth extended key usage');
  if (!client.checkIssued(ca) || !client.verify(ca.publicKey))
    throw new IdentityError('invalid client certificate: not signed by the client CA');
  checkKey(client, identity.clientKeyPem, 'client key');
}

function validateServing(identity: CrcIdentity, hostname: string, now: Date): void {
  const serving = parseCertificate(identity.servingCertPem, 'serving certificate', now);
  const names = dnsNames(serving);
  if (subjectValues(serving, 'CN').join() !== hostname)
    throw new IdentityError(`invalid serving certificate: CN is not ${hostname}`);
  if (names.length !== 1 || names[0] !== hostname || serving.checkHost(hostname) === undefined)
    throw new IdentityError(`invalid serving certificate: its one DNS name must be ${hostname}`);
  if (!(serving.keyUsage ?? []).includes(SERVER_AUTH))
    throw new IdentityError('invalid serving certificate: no serverAuth extended key usage');
  if (!serving.verify(serving.publicKey))
    throw new IdentityError('invalid serving certificate: not self-signed');
  checkKey(serving, identity.servingKeyPem, 'serving key');
}

/**
 * Checks an identity against the external API hostname
 * (docs/reference/agent-protocol.md#identity-checks); throws IdentityError.
 */
export function validateCrcIdentity(
  identity: CrcIdentity,
  hostname: string,
  now: Date = new Date(),
): void {
  if (!hostname) throw new IdentityError('hostname must not be empty');
  validateClient(identity, now);
  validateServing(identity, hostname, now);
}
