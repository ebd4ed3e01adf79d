import { describe, expect, it } from '@jest/globals';
import { gitHubReclaimSettings, repositoryAllowed } from './github-settings.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const load = (env: NodeJS.ProcessEnv, readFile = (): string => PEM) => {
  const problems: string[] = [];
  return { settings: gitHubReclaimSettings({}, env, problems, readFile), problems };
};

describe('the GitHub reclaim settings', () => {
  it('are off without a credentials Secret', () => {
    expect(load({ GITHUB_ALLOWED_REPOSITORIES: 'acme/*' })).toEqual({
      settings: undefined,
      problems: [],
    });
  });

  it('take the API URL of a GitHub Enterprise Server, its CA and the allowed repositories', () => {
    const { settings, problems } = load({
      GITHUB_CREDENTIALS_SECRET: 'github',
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
      GITHUB_ALLOWED_REPOSITORIES: 'acme/*, other/app',
      GITHUB_CA_FILE: '/etc/ghe/ca.pem',
      GITHUB_POLL_INTERVAL: '90s',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      credentialsSecret: 'github',
      apiUrl: 'https://ghe.example.com/api/v3',
      allowedRepositories: ['acme/*', 'other/app'],
      caCertificates: PEM,
      pollIntervalMs: 90_000,
      maxRunsPerNamespace: 20,
      requestsPerNamespacePerHour: 1000,
      proxy: { httpsProxy: '', httpProxy: '', noProxy: '' },
    });
    expect(repositoryAllowed(settings!, 'ACME/anything')).toBe(true);
    expect(repositoryAllowed(settings!, 'other/app')).toBe(true);
    expect(repositoryAllowed(settings!, 'other/app2')).toBe(false);
    expect(repositoryAllowed(settings!, 'acme-evil/app')).toBe(false);
  });

  it('take the namespace bounds and the proxy the platform injects', () => {
    const { settings, problems } = load({
      GITHUB_CREDENTIALS_SECRET: 'github',
      GITHUB_ALLOWED_REPOSITORIES: 'acme/*',
      GITHUB_NAMESPACE_MAX_RUNS: '5',
      GITHUB_NAMESPACE_REQUESTS_PER_HOUR: '300',
      HTTPS_PROXY: 'http://proxy.corp:3128',
      http_proxy: 'http://proxy.corp:3128',
      NO_PROXY: '.cluster.local,.svc,10.0.0.0/16',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      maxRunsPerNamespace: 5,
      requestsPerNamespacePerHour: 300,
      proxy: {
        httpsProxy: 'http://proxy.corp:3128',
        httpProxy: 'http://proxy.corp:3128',
        noProxy: '.cluster.local,.svc,10.0.0.0/16',
      },
    });
  });

  it('refuse a CA file without a certificate (an injected bundle not filled yet)', () => {
    const { problems } = load(
      {
        GITHUB_CREDENTIALS_SECRET: 'github',
        GITHUB_ALLOWED_REPOSITORIES: 'acme/*',
        GITHUB_CA_FILE: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
      },
      () => '',
    );
    expect(problems).toEqual([
      '--github-ca-file (GITHUB_CA_FILE) holds no PEM certificate (/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem)',
    ]);
  });

  it('name every setting that is wrong', () => {
    const { problems } = load(
      {
        GITHUB_CREDENTIALS_SECRET: 'Bad_Name',
        GITHUB_API_URL: 'http://ghe.example.com',
        GITHUB_CA_FILE: '/missing',
        GITHUB_POLL_INTERVAL: '10ms',
        GITHUB_NAMESPACE_MAX_RUNS: '0',
        GITHUB_NAMESPACE_REQUESTS_PER_HOUR: 'lots',
      },
      () => {
        throw new Error('ENOENT');
      },
    );
    expect(problems).toEqual([
      expect.stringContaining('--github-credentials-secret'),
      expect.stringContaining('--github-api-url'),
      expect.stringContaining('--github-allowed-repositories'),
      expect.stringContaining('--github-ca-file'),
      expect.stringContaining('--github-poll-interval'),
      expect.stringContaining('--github-namespace-max-runs'),
      expect.stringContaining('--github-namespace-requests-per-hour'),
    ]);
  });
});
