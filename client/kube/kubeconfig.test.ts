import { describe, expect, it } from '@jest/globals';
import { kubeconfigCredentials, parseKubeconfig } from './kubeconfig.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const KEY =
  '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oS3EF7QqPCuEoAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n';

const kubeconfig = (user: string): string =>
  [
    'apiVersion: v1',
    'current-context: admin',
    'clusters:',
    `- name: guest\n  cluster: {server: "https://api.guest:6443", certificate-authority-data: ${b64('CA PEM')}, tls-server-name: api.guest}`,
    'contexts:',
    '- name: admin\n  context: {cluster: guest, user: admin}',
    'users:',
    `- name: admin\n  user: ${user}`,
  ].join('\n');

describe('parseKubeconfig', () => {
  it('reads the current context with a client certificate', () => {
    const parsed = parseKubeconfig(
      kubeconfig(`{client-certificate-data: ${b64('CERT PEM')}, client-key-data: ${b64(KEY)}}`),
    );
    expect(parsed).toEqual({
      server: 'https://api.guest:6443',
      namespace: undefined,
      ca: 'CA PEM',
      servername: 'api.guest',
      insecureSkipTlsVerify: false,
      cert: 'CERT PEM',
      key: KEY,
      token: undefined,
    });
  });

  it.each([
    ['{exec: {command: oc}}', 'authenticates with "exec"'],
    ['{auth-provider: {name: oidc}}', 'authenticates with "auth-provider"'],
    ['{}', 'has neither a token nor a client certificate and key'],
  ])('refuses a user %s', (user, message) => {
    expect(() => parseKubeconfig(kubeconfig(user))).toThrow(message);
  });

  it('keeps a token file to read again later', () => {
    expect(parseKubeconfig(kubeconfig('{tokenFile: /var/run/token}'))).toMatchObject({
      tokenFile: '/var/run/token',
      token: undefined,
    });
  });

  it('refuses a context that names a cluster it does not define', () => {
    expect(() =>
      parseKubeconfig('current-context: a\ncontexts: [{name: a, context: {cluster: x, user: u}}]'),
    ).toThrow('names cluster "x", which it does not define');
  });
});

describe('kubeconfigCredentials', () => {
  it('lists every credential as written and decoded, for masking', () => {
    const values = kubeconfigCredentials(
      kubeconfig(`{token: abc.def.ghi, client-key-data: ${b64(KEY)}}`),
    );
    expect(values).toEqual(
      expect.arrayContaining([
        'abc.def.ghi',
        b64(KEY),
        KEY,
        'MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oS3EF7QqPCuEoAoGCCqGSM49',
      ]),
    );
    expect(values).not.toContain('CA PEM');
  });
});
