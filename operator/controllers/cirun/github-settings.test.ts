import { describe, expect, it } from '@jest/globals';
import { gitHubReclaimSettings, repositoryAllowed } from './github-settings.js';

const load = (env: NodeJS.ProcessEnv, readFile = (): string => 'PEM') => {
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
      caCertificates: 'PEM',
      pollIntervalMs: 90_000,
    });
    expect(repositoryAllowed(settings!, 'ACME/anything')).toBe(true);
    expect(repositoryAllowed(settings!, 'other/app')).toBe(true);
    expect(repositoryAllowed(settings!, 'other/app2')).toBe(false);
    expect(repositoryAllowed(settings!, 'acme-evil/app')).toBe(false);
  });

  it('name every setting that is wrong', () => {
    const { problems } = load(
      {
        GITHUB_CREDENTIALS_SECRET: 'Bad_Name',
        GITHUB_API_URL: 'http://ghe.example.com',
        GITHUB_CA_FILE: '/missing',
        GITHUB_POLL_INTERVAL: '10ms',
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
    ]);
  });
});
