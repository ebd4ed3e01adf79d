import { constants, generateKeyPairSync, privateEncrypt, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** A PEM certificate and its PEM private key (PKCS#1 `RSA PRIVATE KEY`). */
export interface PemPair {
  certificatePem: string;
  keyPem: string;
}

export interface CertificateRequest {
  commonName: string;
  organizationalUnits?: string[];
  organizations?: string[];
  /** Signs with this pair; self-signed when absent. */
  issuer?: PemPair;
  isCa: boolean;
  keyCertSign?: boolean;
  clientAuth?: boolean;
  serverAuth?: boolean;
  dnsNames?: string[];
  validityDays: number;
  /** Defaults to now; no backdating. */
  notBefore?: Date;
}

/**
 * Issues an RSA 2048 certificate with a random 128-bit serial. Keys come from Node's native
 * crypto (fast); node-forge builds and signs the certificate with SHA-256.
 */
export function issueCertificate(request: CertificateRequest): PemPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // The leading 00 keeps the DER integer positive.
  cert.serialNumber = positiveSerialNumber();
  const notBefore = request.notBefore ?? new Date();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = new Date(notBefore.getTime() + request.validityDays * 86_400_000);
  cert.setSubject([
    { name: 'commonName', value: request.commonName },
    ...(request.organizations ?? []).map((value) => ({ name: 'organizationName', value })),
    ...(request.organizationalUnits ?? []).map((value) => ({
      name: 'organizationalUnitName',
      value,
    })),
  ]);
  const issuer = request.issuer
    ? forge.pki.certificateFromPem(request.issuer.certificatePem)
    : cert;
  cert.setIssuer(issuer.subject.attributes);
  cert.setExtensions(extensions(request));
  cert.sign(nativeSigner(request.issuer?.keyPem ?? privateKey), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), keyPem: privateKey };
}

/** DER prefix of a PKCS#1 DigestInfo for SHA-256 (RFC 8017, EMSA-PKCS1-v1_5). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * RSASSA-PKCS1-v1_5 with Node's native RSA instead of node-forge's JavaScript big integers, which
 * take seconds per signature in some runtimes (inside a Jest test, about a second of CPU each).
 * node-forge hands over the finished digest; certificates and CSRs both sign through it.
 */
export function nativeSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  const signer = {
    sign: (md: forge.md.MessageDigest): string => {
      const digest = Buffer.from(md.digest().getBytes(), 'binary');
      return privateEncrypt(
        { key: keyPem, padding: constants.RSA_PKCS1_PADDING },
        Buffer.concat([SHA256_DIGEST_INFO, digest]),
      ).toString('binary');
    },
  };
  return signer as unknown as forge.pki.rsa.PrivateKey;
}

function extensions(request: CertificateRequest): object[] {
  const list: object[] = [
    { name: 'basicConstraints', critical: true, cA: request.isCa },
    {
      name: 'keyUsage',
      critical: true,
      digitalSignature: true,
      keyEncipherment: true,
      keyCertSign: request.keyCertSign ?? false,
    },
  ];
  if (request.clientAuth || request.serverAuth)
    list.push({
      name: 'extKeyUsage',
      clientAuth: request.clientAuth ?? false,
      serverAuth: request.serverAuth ?? false,
    });
  if (request.dnsNames?.length)
    list.push({
      name: 'subjectAltName',
      altNames: request.dnsNames.map((value) => ({ type: 2, value })),
    });
  return list;
}

/**
 * A random 128-bit serial that is a valid positive DER integer: the top bit of the first byte is
 * clear (else it would read as negative) and the byte is not zero (else its padding is illegal).
 */
function positiveSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString('hex');
}
