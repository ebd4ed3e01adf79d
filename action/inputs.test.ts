import { describe, expect, it } from '@jest/globals';
import { gitHubRun } from '../client/lease/github-run.js';
import { InputError, readSettings } from './inputs.js';

const RUN = gitHubRun({
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_RUN_ID: '42',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_JOB: 'e2e',
  GITHUB_ACTION: '__guestcluster_lease',
  RUNNER_NAME: 'runner-1',
});

const BASE = {
  'management-server': 'https://api.mgmt.example:6443',
  'management-token': 'sha256~secret-token',
  namespace: 'ci',
  pool: 'crc-pool',
};

function settings(
  inputs: Record<string, string>,
  env: NodeJS.ProcessEnv = { RUNNER_TEMP: '/runner/tmp' },
) {
  return readSettings((name) => inputs[name] ?? '', RUN, env);
}

describe('readSettings', () => {
  it('fills in the defaults a CI author expects', () => {
    const result = settings(BASE);
    expect(result).toMatchObject({
      namespace: 'ci',
      pool: 'crc-pool',
      ttl: '6h',
      timeoutMs: 30 * 60_000,
      onMismatch: 'fail',
      release: true,
      holdOnFailureMs: 0,
      diagnosticsRetentionDays: 7,
      requestedBy: 'octo-org/app CI run 42 attempt 2 job e2e',
    });
    expect(result.leaseName).toMatch(/^gh-42-2-[0-9a-f]{8}$/);
    expect(result.kubeconfigPath).toBe(`/runner/tmp/guestcluster/${result.leaseName}.kubeconfig`);
    expect(result.kubeconfigRoot).toBe('/runner/tmp');
    expect(result.access).toMatchObject({
      server: 'https://api.mgmt.example:6443',
      token: 'sha256~secret-token',
    });
  });

  it('takes every input as given', () => {
    const result = settings({
      ...BASE,
      ttl: '0',
      timeout: '1h30m',
      'lease-name': 'my-lease',
      'requested-by': 'nightly',
      'expected-topology': 'hcp',
      'expected-ocp-version': '4.16',
      'on-mismatch': 'warn',
      release: 'false',
      'hold-on-failure': '30m',
      'diagnostics-retention-days': '0',
      'kubeconfig-path': '/work/guest.kubeconfig',
    });
    expect(result).toMatchObject({
      ttl: '0',
      timeoutMs: 90 * 60_000,
      leaseName: 'my-lease',
      requestedBy: 'nightly',
      expectedTopology: 'hcp',
      expectedOcpVersion: '4.16',
      onMismatch: 'warn',
      release: false,
      holdOnFailureMs: 30 * 60_000,
      diagnosticsRetentionDays: 0,
      kubeconfigPath: '/work/guest.kubeconfig',
      kubeconfigRoot: undefined,
    });
  });

  it.each([
    [{ ttl: 'soon' }, 'Input "ttl" is "soon"; expected a duration'],
    [{ ttl: '9000h' }, 'Input "ttl" is "9000h"; expected at most 8760h (365 days)'],
    [{ timeout: '0' }, 'Input "timeout" is "0"; expected more than 0'],
    [{ namespace: 'CI_Team' }, 'Input "namespace" is "CI_Team"; expected a Kubernetes name'],
    [{ pool: '' }, 'Input "pool" is not set'],
    [{ 'lease-name': 'x'.repeat(243) }, 'Input "lease-name" is "xxx'],
    [
      { 'expected-topology': 'ocp' },
      'Input "expected-topology" is "ocp"; expected one of: crc, hcp',
    ],
    [{ 'expected-ocp-version': 'latest' }, 'Input "expected-ocp-version" is "latest"'],
    [{ 'expected-ocp-version': '4' }, 'expected a minor such as 4.16 (any 4.16.z)'],
    [{ 'on-mismatch': 'ignore' }, 'Input "on-mismatch" is "ignore"; expected one of: fail, warn'],
    [{ release: 'yes' }, 'Input "release" is "yes"; expected true or false'],
    [{ 'hold-on-failure': 'a while' }, 'Input "hold-on-failure" is "a while"; expected a duration'],
    [
      { 'diagnostics-retention-days': '1w' },
      'Input "diagnostics-retention-days" is "1w"; expected a whole number of days from 0',
    ],
    [{ 'diagnostics-retention-days': '401' }, "from 0 (the repository's default) to 400"],
    [
      { 'management-server': 'http://api:6443' },
      'Input "management-server" is "http://api:6443"; expected an https:// URL',
    ],
    [{ 'management-token': '' }, 'The management cluster is not set'],
    [{ 'management-kubeconfig': 'apiVersion: v1' }, 'exclude each other'],
  ])('refuses %j', (change, message) => {
    expect(() => settings({ ...BASE, ...change })).toThrow(InputError);
    expect(() => settings({ ...BASE, ...change })).toThrow(message);
  });

  it('with auth github-oidc, takes a server and the exchange, and no stored credential', () => {
    const oidc = {
      'management-server': 'https://api.mgmt.example:6443',
      auth: 'github-oidc',
      'token-exchange-url': 'https://exchange.apps.mgmt.example/v1/token',
      namespace: 'ci',
      pool: 'crc-pool',
    };
    const result = settings(oidc);
    expect(result.access).toEqual({
      server: 'https://api.mgmt.example:6443',
      ca: undefined,
      insecureSkipTlsVerify: false,
    });
    expect(result.auth).toEqual({
      endpoint: {
        url: 'https://exchange.apps.mgmt.example/v1/token',
        certificateAuthority: undefined,
      },
      audience: 'guestcluster',
    });
    expect(settings(BASE).auth).toBeUndefined();
    expect(() => settings({ ...oidc, 'management-token': 'sha256~secret-token' })).toThrow(
      'Input "auth" is github-oidc: give "management-server" (and "management-certificate-authority"), not "management-token" or "management-kubeconfig"',
    );
    expect(() => settings({ ...oidc, 'token-exchange-url': '' })).toThrow(
      'Input "token-exchange-url" is not set',
    );
    expect(() =>
      settings({ ...oidc, 'token-exchange-url': 'http://exchange.apps.mgmt.example/v1/token' }),
    ).toThrow(
      'Input "token-exchange-url" is "http://exchange.apps.mgmt.example/v1/token"; expected an https:// URL',
    );
    expect(() => settings({ ...oidc, auth: 'oidc' })).toThrow(
      'Input "auth" is "oidc"; expected one of: token, github-oidc',
    );
  });

  it('never puts a credential into an error', () => {
    const kubeconfig = 'users: [{name: u, user: {token: very-secret}}]\nthis is: [not yaml';
    const error = (() => {
      try {
        settings({ 'management-kubeconfig': kubeconfig, pool: 'p', namespace: 'ci' });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('expected an InputError');
    })();
    expect(error.message).toContain('Input "management-kubeconfig"');
    expect(error.message).not.toContain('very-secret');
  });

  it('takes the namespace from the kubeconfig context when the input is empty', () => {
    const kubeconfig = [
      'current-context: c',
      'clusters: [{name: m, cluster: {server: "https://api.example:6443/"}}]',
      'users: [{name: u, user: {token: t0ken}}]',
      'contexts: [{name: c, context: {cluster: m, user: u, namespace: team-a}}]',
    ].join('\n');
    const result = settings({ 'management-kubeconfig': kubeconfig, pool: 'p' });
    expect(result.namespace).toBe('team-a');
    expect(result.access.server).toBe('https://api.example:6443');
  });
});
