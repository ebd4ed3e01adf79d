import type https from 'node:https';
import { describe, expect, it } from '@jest/globals';
import { defaultClusterAccess } from './cluster-access.js';

const KUBECONFIG = [
  'current-context: c',
  'clusters: [{name: m, cluster: {server: "https://api.example:6443"}}]',
  'users: [{name: u, user: {token: from-kubeconfig}}]',
  'contexts: [{name: c, context: {cluster: m, user: u}}]',
].join('\n');

/** A fake file system: paths to contents; anything else does not exist. */
function files(contents: Record<string, string>): (file: string) => string {
  return (file) => {
    if (!(file in contents)) throw Object.assign(new Error(`ENOENT ${file}`), { code: 'ENOENT' });
    return contents[file]!;
  };
}

async function authorization(access: ReturnType<typeof defaultClusterAccess>['access']) {
  const options: https.RequestOptions = {};
  await access.applyToHTTPSOptions(options);
  return {
    options,
    header: (options.headers as Record<string, string> | undefined)?.Authorization,
  };
}

describe('defaultClusterAccess', () => {
  it('takes the first file of $KUBECONFIG that exists', async () => {
    const found = defaultClusterAccess(
      { KUBECONFIG: '/missing:/etc/kube/config' },
      files({ '/etc/kube/config': KUBECONFIG }),
    );
    expect(found.server).toBe('https://api.example:6443');
    expect(found.source).toBe('/etc/kube/config');
    expect((await authorization(found.access)).header).toBe('Bearer from-kubeconfig');
  });

  it('falls back to ~/.kube/config', () => {
    const found = defaultClusterAccess(
      { HOME: '/home/me' },
      files({ '/home/me/.kube/config': KUBECONFIG }),
    );
    expect(found.source).toBe('/home/me/.kube/config');
  });

  it('uses the pod service account, with its CA and token', async () => {
    const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
    const found = defaultClusterAccess(
      { HOME: '/nowhere', KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      files({ [`${sa}/ca.crt`]: 'CA PEM', [`${sa}/token`]: 'sa-token\n' }),
    );
    expect(found.server).toBe('https://[fd00::1]:443');
    const { options, header } = await authorization(found.access);
    expect(options.ca).toBe('CA PEM');
    expect(header).toBe('Bearer sa-token');
  });

  it('says where it looked when there is nothing', () => {
    expect(() => defaultClusterAccess({ HOME: '/nowhere' }, files({}))).toThrow(
      'No kubeconfig (looked at /nowhere/.kube/config) and not in a pod',
    );
  });
});
