import { describe, expect, test } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  bundleServerCa,
  hasClusters,
  handoffKubeconfig,
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

  test('the handoff kubeconfig is written from scratch: one cluster, user and context', () => {
    const text = handoffKubeconfig('api-x.apps.example', {
      servingCertPem: 'SERVING',
      clientCertPem: 'CERT',
      clientKeyPem: 'KEY',
    });
    expect(parse(text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'crc',
          cluster: {
            server: 'https://api-x.apps.example:443',
            'certificate-authority-data': b64('SERVING'),
          },
        },
      ],
      users: [
        {
          name: 'admin',
          user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
        },
      ],
      contexts: [{ name: 'admin', context: { cluster: 'crc', user: 'admin' } }],
      'current-context': 'admin',
    });
  });
});
