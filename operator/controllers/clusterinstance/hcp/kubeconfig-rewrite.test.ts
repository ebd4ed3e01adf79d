import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { issueCertificate } from '../../../../contracts/certificates.js';
import { KubeconfigRejectedError } from '../../../kube/strict-kubeconfig.js';
import { controlPlaneEndpoint, hcpGuestAccess } from './kubeconfig-rewrite.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const hyperShiftCa = issueCertificate({
  commonName: 'root-ca',
  isCa: true,
  keyCertSign: true,
  validityDays: 1,
});

/** HyperShift's admin kubeconfig with `user` as its one user. */
const admin = (user: Record<string, unknown>, server = 'https://10.0.0.5:31443'): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'cluster',
        cluster: { server, 'certificate-authority-data': b64(hyperShiftCa.certificatePem) },
      },
    ],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'admin', context: { cluster: 'cluster', user: 'admin' } }],
    'current-context': 'admin',
  });

const hosted = {
  controlPlaneEndpoint: 'https://10.0.0.5:31443',
  endpoint: 'https://api.example',
  caPem: 'KAS SERVING CERT PEM',
};

describe('hcpGuestAccess', () => {
  it("keeps only the admin credential, with the instance's endpoint and the KAS certificate", () => {
    expect(hcpGuestAccess(admin({ token: 'sha256~t' }), hosted)).toEqual({
      server: 'https://api.example',
      ca: 'KAS SERVING CERT PEM',
      credentials: { token: 'sha256~t' },
    });
  });

  it.each([
    ['a token file', admin({ tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' })],
    ['a server of its own', admin({ token: 't' }, 'https://127.0.0.1:8443')],
    ['an exec plugin', admin({ exec: { command: 'sh' } })],
  ])('refuses an admin kubeconfig with %s', (_what, text) => {
    expect(() => hcpGuestAccess(text, hosted)).toThrow(KubeconfigRejectedError);
  });
});

describe('controlPlaneEndpoint', () => {
  it('is the URL of HyperShift status.controlPlaneEndpoint once set', () => {
    expect(controlPlaneEndpoint({ controlPlaneEndpoint: { host: '10.0.0.5', port: 31443 } })).toBe(
      'https://10.0.0.5:31443',
    );
    expect(controlPlaneEndpoint({ controlPlaneEndpoint: { host: 'fd00::5', port: 6443 } })).toBe(
      'https://[fd00::5]:6443',
    );
    expect(controlPlaneEndpoint({})).toBeUndefined();
  });
});
