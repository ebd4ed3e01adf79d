import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { readStrictKubeconfig } from '../../operator/kube/strict-kubeconfig.js';
import { issueSelfSignedCertificate } from '../../operator/kube/self-signed-certificate.js';
import { withProxyUrl } from './kubeconfig-proxy.js';

const CA = Buffer.from(
  issueSelfSignedCertificate('api.guest.apps.local.test', Date.now()).certificatePem,
).toString('base64');
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: guest
    cluster:
      server: https://api.guest.apps.local.test:443
      certificate-authority-data: ${CA}
users:
  - name: admin
    user:
      token: secret-token
contexts:
  - name: guest
    context: { cluster: guest, user: admin }
current-context: guest
`;

describe('withProxyUrl', () => {
  it('sends every cluster through the proxy and keeps the rest as it was', () => {
    const proxied = parse(withProxyUrl(KUBECONFIG, 'http://127.0.0.1:4321')) as {
      clusters: { cluster: Record<string, string> }[];
      users: unknown;
      'current-context': string;
    };
    expect(proxied.clusters[0]!.cluster).toEqual({
      server: 'https://api.guest.apps.local.test:443',
      'certificate-authority-data': CA,
      'proxy-url': 'http://127.0.0.1:4321',
    });
    expect(proxied.users).toEqual((parse(KUBECONFIG) as { users: unknown }).users);
    expect(proxied['current-context']).toBe('guest');
  });

  it("gives a kubeconfig that the operator's strict reading refuses", () => {
    const servers = ['https://api.guest.apps.local.test:443'];
    expect(readStrictKubeconfig(KUBECONFIG, { servers }).server).toBe(
      'https://api.guest.apps.local.test',
    );
    expect(() =>
      readStrictKubeconfig(withProxyUrl(KUBECONFIG, 'http://127.0.0.1:4321'), { servers }),
    ).toThrow(/proxy-url/);
  });
});
