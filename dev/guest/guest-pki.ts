import { issueCertificate } from '../../crc-agent/certificates.js';
import type { PemPair } from '../../crc-agent/certificates.js';

export const GUEST_API_NAMES = ['api.crc.testing', 'api-int.crc.testing'];

/** The certificates a CRC bundle ships with (what `crc` bakes into the disk image). */
export interface BundlePki {
  /** Signs the guest kube-apiserver's serving certificate; in /opt/kubeconfig as the cluster CA. */
  serverCa: PemPair;
  /** Serving certificate for api.crc.testing. */
  serving: PemPair;
  /** The bundle's admin-kubeconfig signer, trusted until the agent replaces the client CA. */
  adminCa: PemPair;
  /** The bundle's admin credential, in the original /opt/kubeconfig. */
  admin: PemPair;
}

export function createBundlePki(): BundlePki {
  const serverCa = issueCertificate({
    commonName: 'kube-apiserver-lb-signer',
    organizationalUnits: ['openshift'],
    isCa: true,
    keyCertSign: true,
    validityDays: 30,
  });
  const serving = issueCertificate({
    commonName: 'api.crc.testing',
    issuer: serverCa,
    isCa: false,
    serverAuth: true,
    dnsNames: GUEST_API_NAMES,
    validityDays: 30,
  });
  const adminCa = issueCertificate({
    commonName: 'admin-kubeconfig-signer',
    organizationalUnits: ['openshift'],
    isCa: true,
    keyCertSign: true,
    validityDays: 30,
  });
  const admin = issueCertificate({
    commonName: 'system:admin',
    organizations: ['system:masters'],
    issuer: adminCa,
    isCa: false,
    clientAuth: true,
    validityDays: 30,
  });
  return { serverCa, serving, adminCa, admin };
}
