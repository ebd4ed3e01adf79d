import { describe, expect, test } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  bundleServerCa,
  hasClusters,
  rewriteKubeconfig,
  spliceClientIdentity,
} from './guest-kubeconfig.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const GUEST = stringify({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [
    {
      name: 'crc',
      cluster: {
        server: 'https://api.crc.testing:6443',
        'certificate-authority-data': b64('SERVER-CA'),
        'certificate-authority': '/etc/ca.crt',
        'insecure-skip-tls-verify': true,
      },
    },
  ],
  users: [{ name: 'admin', user: { 'client-certificate': '/a.crt', 'client-key': '/a.key' } }],
  contexts: [{ name: 'admin', context: { cluster: 'crc', user: 'admin' } }],
  'current-context': 'admin',
});

describe('guest kubeconfig', () => {
  test('readiness needs a parsable file with a cluster', () => {
    expect(hasClusters(GUEST)).toBe(true);
    expect(hasClusters('clusters: []\n')).toBe(false);
    expect(() => hasClusters('clusters: [\n')).toThrow('not valid YAML');
  });

  test('parse errors do not quote the content', () => {
    expect(() => hasClusters('client-key-data: "TOPSECRET\n')).toThrow(
      /^not valid YAML( \(line \d+\))?$/,
    );
  });

  test('the bundle server CA comes from clusters[0]', () => {
    expect(bundleServerCa(GUEST)).toBe('SERVER-CA');
    expect(() => bundleServerCa('clusters: [{name: x, cluster: {}}]')).toThrow(
      'no certificate-authority-data',
    );
  });

  test('the identity replaces the client credential of users[0]', () => {
    const spliced = parse(spliceClientIdentity(GUEST, 'CERT', 'KEY')) as {
      users: { user: object }[];
    };
    expect(spliced.users[0]!.user).toEqual({
      'client-certificate-data': b64('CERT'),
      'client-key-data': b64('KEY'),
    });
    expect(() => spliceClientIdentity('clusters: []', 'C', 'K')).toThrow('no users');
  });

  test('the rewrite points every cluster at the Route host and keeps the rest', () => {
    const text = rewriteKubeconfig(
      spliceClientIdentity(GUEST, 'CERT', 'KEY'),
      'api-x.apps.example',
      'SERVING',
    );
    const config = parse(text) as Record<string, unknown> & { clusters: { cluster: object }[] };
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0]!.cluster).toEqual({
      server: 'https://api-x.apps.example:443',
      'certificate-authority-data': b64('SERVING'),
    });
    expect(config['current-context']).toBe('admin');
    expect(config.users).toEqual([
      {
        name: 'admin',
        user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
      },
    ]);
    expect(() => rewriteKubeconfig('{{', 'h', 'c')).toThrow();
  });
});
