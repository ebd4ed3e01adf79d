import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { nativeSigner } from '../../contracts/certificates.js';

/** A PEM-encoded certificate and its private key. */
export interface CertificateAndKey {
  certificatePem: string;
  keyPem: string;
}

/** Everything the local control plane needs to speak TLS and authenticate its clients. */
export interface ControlPlanePki {
  ca: CertificateAndKey;
  /** Serving certificate of the kube-apiserver, valid for 127.0.0.1 and localhost. */
  apiServer: CertificateAndKey;
  /** Client certificate in group system:masters, used by tests and the CLI. */
  admin: CertificateAndKey;
  /** Client certificate that RBAC's bootstrap policy knows as the controller manager. */
  controllerManager: CertificateAndKey;
  /** Key pair that signs and verifies service-account tokens. */
  serviceAccount: { publicKeyPem: string; privateKeyPem: string };
}

interface Subject {
  commonName: string;
  organizations?: string[];
}

const VALIDITY_DAYS = 30;

/**
 * RSA keys come from Node's native crypto (milliseconds) rather than node-forge's pure-JavaScript
 * generator (seconds per key); node-forge builds the certificates, and Node signs them.
 */
function newRsaKeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

function subjectAttributes(subject: Subject): forge.pki.CertificateField[] {
  return [
    { name: 'commonName', value: subject.commonName },
    ...(subject.organizations ?? []).map((value) => ({ name: 'organizationName', value })),
  ];
}

function signCertificate(options: {
  subject: Subject;
  issuer?: { certificatePem: string; keyPem: string };
  extensions: object[];
}): CertificateAndKey {
  const keys = newRsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = positiveSerialNumber();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now + VALIDITY_DAYS * 24 * 60 * 60 * 1000);
  cert.setSubject(subjectAttributes(options.subject));
  const issuerCert = options.issuer
    ? forge.pki.certificateFromPem(options.issuer.certificatePem)
    : cert;
  cert.setIssuer(issuerCert.subject.attributes);
  cert.setExtensions(options.extensions);
  cert.sign(nativeSigner(options.issuer?.keyPem ?? keys.privateKeyPem), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem };
}

function clientCertificate(ca: CertificateAndKey, subject: Subject): CertificateAndKey {
  return signCertificate({
    subject,
    issuer: ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
}

function certificateAuthority(commonName: string): CertificateAndKey {
  return signCertificate({
    subject: { commonName },
    extensions: [
      { name: 'basicConstraints', critical: true, cA: true },
      {
        name: 'keyUsage',
        critical: true,
        keyCertSign: true,
        cRLSign: true,
        digitalSignature: true,
      },
    ],
  });
}

/** A serving certificate for 127.0.0.1, localhost and `dnsNames`. */
function servingCertificate(
  ca: CertificateAndKey,
  commonName: string,
  dnsNames: string[] = [],
): CertificateAndKey {
  return signCertificate({
    subject: { commonName },
    issuer: ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          ...['localhost', ...dnsNames].map((value) => ({ type: 2, value })),
        ],
      },
    ],
  });
}

/** Creates a fresh certificate authority and the certificates signed by it. */
export function createControlPlanePki(): ControlPlanePki {
  const ca = certificateAuthority('guestcluster-local-ca');
  return {
    ca,
    apiServer: servingCertificate(ca, 'kube-apiserver', ['kubernetes', 'kubernetes.default.svc']),
    admin: clientCertificate(ca, {
      commonName: 'guestcluster-admin',
      organizations: ['system:masters'],
    }),
    controllerManager: clientCertificate(ca, { commonName: 'system:kube-controller-manager' }),
    serviceAccount: newRsaKeyPair(),
  };
}

/**
 * A certificate authority of its own and a serving certificate it signed for 127.0.0.1 and
 * localhost: for local HTTPS stand-ins (an OIDC issuer) that clients trust through the CA alone.
 * Each CA has a name of its own, as real ones do: OpenSSL picks a trusted CA by its name, so two
 * of one name in one trust bundle would check one's certificates against the other's key.
 */
export function createServingPki(commonName: string): {
  ca: CertificateAndKey;
  server: CertificateAndKey;
} {
  const ca = certificateAuthority(`${commonName}-ca-${randomBytes(4).toString('hex')}`);
  return { ca, server: servingCertificate(ca, commonName) };
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
