import { parseGoDuration } from '../../../client/api/duration.js';
import type { BackoffPolicy } from '../../runtime/backoff.js';

/**
 * How the operator asks GitHub whether a lease's CI job has completed (ADR 0024). Off unless the
 * admin names a credentials Secret; the repositories the operator asks about are the admin's
 * choice too, since a lease's run annotations are written by a tenant.
 */
export interface GitHubReclaimSettings {
  /** The Secret in the operator namespace with `token`, or `app-id`, `private-key` and `installation-id`. */
  credentialsSecret: string;
  /** The REST API root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  /** `owner/repo` or `owner/*`: the only repositories whose runs the operator asks about. */
  allowedRepositories: string[];
  /** PEM bundle the API's certificate is checked against (a GitHub Enterprise Server's own CA); system roots when unset. */
  caCertificates?: string;
  /** How often a lease's run is asked about; one answer serves every lease of the run for this long. */
  pollIntervalMs: number;
  /** Waits after GitHub failed to answer (5xx, unreachable, 401, 404): doubling from base to max. */
  backoff: BackoffPolicy;
  /** The most distinct run attempts one namespace's leases are asked about (docs/reference/kinds.md#what-a-namespace-may-spend). */
  maxRunsPerNamespace: number;
  /** Requests to GitHub one namespace's leases may cost per hour. */
  requestsPerNamespacePerHour: number;
  /** The cluster-wide egress proxy as the platform sets it on the pod ('' when none). */
  proxy: GitHubProxy;
}

/** HTTPS_PROXY, HTTP_PROXY and NO_PROXY of the operator's pod (OpenShift and OLM inject them). */
export interface GitHubProxy {
  httpsProxy: string;
  httpProxy: string;
  noProxy: string;
}

export const GITHUB_SETTINGS = {
  secret: '--github-credentials-secret (GITHUB_CREDENTIALS_SECRET)',
  apiUrl: '--github-api-url (GITHUB_API_URL)',
  allowed: '--github-allowed-repositories (GITHUB_ALLOWED_REPOSITORIES)',
  caFile: '--github-ca-file (GITHUB_CA_FILE)',
  poll: '--github-poll-interval (GITHUB_POLL_INTERVAL)',
  maxRuns: '--github-namespace-max-runs (GITHUB_NAMESPACE_MAX_RUNS)',
  requests: '--github-namespace-requests-per-hour (GITHUB_NAMESPACE_REQUESTS_PER_HOUR)',
} as const;

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
const DEFAULT_POLL_INTERVAL = '2m';
/** A busy team's concurrent workflow runs; each asked about every poll interval. */
const DEFAULT_MAX_RUNS = '20';
/** Twenty runs polled every 2m cost 600 an hour; the rest covers new leases and pages. */
const DEFAULT_REQUESTS_PER_HOUR = '1000';
/** GitHub asks integrators to wait at least a minute after a secondary rate limit; errors start there too. */
const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 60_000, maxMs: 15 * 60_000, jitter: 0.2 };

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** GitHub owner and repository names: letters, digits, '-', '_' and '.'. */
const REPOSITORY_PATTERN = /^[A-Za-z0-9-]+\/([A-Za-z0-9._-]+|\*)$/;

export interface GitHubFlags {
  githubCredentialsSecret?: string;
  githubApiUrl?: string;
  githubAllowedRepositories?: string;
  githubCaFile?: string;
  githubPollInterval?: string;
  githubNamespaceMaxRuns?: string;
  githubNamespaceRequestsPerHour?: string;
}

/** The settings, or undefined when no credentials Secret is named; problems go to `problems`. */
export function gitHubReclaimSettings(
  flags: GitHubFlags,
  env: NodeJS.ProcessEnv,
  problems: string[],
  readFile: (path: string) => string,
): GitHubReclaimSettings | undefined {
  // A flag wins over its variable, which wins over the default.
  const given = (flag: string | undefined, variable: string, fallback = ''): string =>
    flag ?? env[variable] ?? fallback;
  const secret = given(flags.githubCredentialsSecret, 'GITHUB_CREDENTIALS_SECRET');
  if (!secret) return undefined;
  if (!NAME.test(secret) || secret.length > 253)
    problems.push(`${GITHUB_SETTINGS.secret} must be a Secret name (got "${secret}")`);
  const caFile = given(flags.githubCaFile, 'GITHUB_CA_FILE');
  return {
    credentialsSecret: secret,
    apiUrl: apiUrlSetting(flags.githubApiUrl ?? env.GITHUB_API_URL, problems),
    allowedRepositories: allowedRepositories(
      given(flags.githubAllowedRepositories, 'GITHUB_ALLOWED_REPOSITORIES'),
      problems,
    ),
    caCertificates: caFile ? readCaFile(caFile, problems, readFile) : undefined,
    pollIntervalMs: pollInterval(
      given(flags.githubPollInterval, 'GITHUB_POLL_INTERVAL', DEFAULT_POLL_INTERVAL),
      problems,
    ),
    backoff: DEFAULT_BACKOFF,
    maxRunsPerNamespace: count(
      GITHUB_SETTINGS.maxRuns,
      given(flags.githubNamespaceMaxRuns, 'GITHUB_NAMESPACE_MAX_RUNS', DEFAULT_MAX_RUNS),
      problems,
    ),
    requestsPerNamespacePerHour: count(
      GITHUB_SETTINGS.requests,
      given(
        flags.githubNamespaceRequestsPerHour,
        'GITHUB_NAMESPACE_REQUESTS_PER_HOUR',
        DEFAULT_REQUESTS_PER_HOUR,
      ),
      problems,
    ),
    proxy: proxyFromEnvironment(env),
  };
}

/** The proxy variables as the platform sets them (either case, as curl and Go read them). */
export function proxyFromEnvironment(env: NodeJS.ProcessEnv): GitHubProxy {
  return {
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? '',
    httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
  };
}

function count(setting: string, text: string, problems: string[]): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 1_000_000)
    problems.push(`${setting} must be a whole number from 1 to 1000000 (got "${text}")`);
  return value;
}

function apiUrlSetting(text: string | undefined, problems: string[]): string {
  const apiUrl = (text || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  if (!/^https:\/\/[^\s/]+(\/\S*)?$/.test(apiUrl))
    problems.push(`${GITHUB_SETTINGS.apiUrl} must be an https URL (got "${apiUrl}")`);
  return apiUrl;
}

function allowedRepositories(text: string, problems: string[]): string[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0 || entries.some((entry) => !REPOSITORY_PATTERN.test(entry)))
    problems.push(
      `${GITHUB_SETTINGS.allowed} must list owner/repo or owner/* entries, comma-separated, when ${GITHUB_SETTINGS.secret} is set (got "${text}")`,
    );
  return entries;
}

function readCaFile(
  path: string,
  problems: string[],
  readFile: (path: string) => string,
): string | undefined {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    problems.push(`${GITHUB_SETTINGS.caFile} cannot be read: ${(error as Error).message}`);
    return undefined;
  }
  // An empty file would replace the system roots with nothing: every request would fail TLS.
  // OpenShift fills an injected trusted-CA ConfigMap only once the cluster's network operator
  // has seen it (docs/install.md#egress-proxy-and-trusted-ca-bundle).
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    problems.push(`${GITHUB_SETTINGS.caFile} holds no PEM certificate (${path})`);
  return text;
}

function pollInterval(text: string, problems: string[]): number {
  const ms = parseGoDuration(text) ?? NaN;
  if (!(ms >= 1000))
    problems.push(
      `${GITHUB_SETTINGS.poll} must be a duration of at least 1s, such as 2m (got "${text}")`,
    );
  return ms;
}

/** Whether the admin allows asking about `repository` ("owner/repo"); GitHub names are case-insensitive. */
export function repositoryAllowed(settings: GitHubReclaimSettings, repository: string): boolean {
  const [owner = '', repo = ''] = repository.toLowerCase().split('/');
  return settings.allowedRepositories.some((entry) => {
    const [allowedOwner, allowedRepo] = entry.toLowerCase().split('/');
    return allowedOwner === owner && (allowedRepo === '*' || allowedRepo === repo);
  });
}
