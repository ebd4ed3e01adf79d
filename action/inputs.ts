import os from 'node:os';
import path from 'node:path';
import { MAX_LEASE_TTL_MS, parseGoDuration } from '../client/api/duration.js';
import type { GitHubRun } from '../client/lease/github-run.js';
import { defaultLeaseName, defaultRequestedBy } from '../client/lease/github-run.js';
import type { KubeconfigContext } from '../client/kube/kubeconfig.js';
import { KubeconfigError, parseKubeconfig } from '../client/kube/kubeconfig.js';
import type { ExchangeEndpoint } from '../client/lease/token-exchange-client.js';
import { MAX_KUBECONFIG_OWNER_NAME } from '../contracts/names.js';

/** Everything the main step needs, validated. */
export interface Settings {
  access: KubeconfigContext;
  /** With `auth: github-oidc`: where the job's ID token is exchanged (access then holds no token). */
  auth?: OidcAuth;
  namespace: string;
  pool: string;
  /** A Go duration for spec.ttl; "0" means none. */
  ttl: string;
  timeoutMs: number;
  requestedBy: string;
  leaseName: string;
  expectedTopology?: 'crc' | 'hcp';
  expectedOcpVersion?: string;
  onMismatch: 'fail' | 'warn';
  release: boolean;
  /** How long post keeps the cluster when the job failed (0: released as always). */
  holdOnFailureMs: number;
  /** How long GitHub keeps a failed job's diagnostics artifact (0: the repository's default). */
  diagnosticsRetentionDays: number;
  kubeconfigPath: string;
  /**
   * For the default path: RUNNER_TEMP, the folder trusted as it is; the writer makes the folders
   * below it its own (private-file.ts). Unset for a path the user gave.
   */
  kubeconfigRoot?: string;
}

/** An input with a bad value: names the input, and the value unless it is a credential. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Reads one input: trimmed, "" when unset (like `core.getInput`). */
export type InputReader = (name: string) => string;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The lease's kubeconfig Secret is "<lease>-kubeconfig" and must stay a valid name. */
const MAX_LEASE_NAME = MAX_KUBECONFIG_OWNER_NAME;

function choice<T extends string>(
  input: InputReader,
  name: string,
  allowed: T[],
  fallback?: T,
): T | undefined {
  const value = input(name);
  if (value === '') return fallback;
  if (!allowed.includes(value as T))
    throw new InputError(`Input "${name}" is "${value}"; expected one of: ${allowed.join(', ')}`);
  return value as T;
}

function duration(
  input: InputReader,
  name: string,
  fallback: string,
): { text: string; ms: number } {
  const text = input(name) || fallback;
  const ms = parseGoDuration(text);
  if (ms === undefined)
    throw new InputError(
      `Input "${name}" is "${text}"; expected a duration such as 30m, 2h or 1h30m`,
    );
  return { text, ms };
}

function positive(value: { text: string; ms: number }, name: string): number {
  if (value.ms <= 0)
    throw new InputError(`Input "${name}" is "${value.text}"; expected more than 0`);
  return value.ms;
}

function atMost(
  value: { text: string; ms: number },
  name: string,
  max: number,
  maxText: string,
): string {
  if (value.ms > max)
    throw new InputError(`Input "${name}" is "${value.text}"; expected at most ${maxText}`);
  return value.text;
}

function boolean(input: InputReader, name: string, fallback: boolean): boolean {
  const value = input(name);
  if (value === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new InputError(`Input "${name}" is "${value}"; expected true or false`);
}

/** Input diagnostics-on-failure: post attaches the lease's diagnostics when the job failed. */
export function readDiagnosticsOnFailure(input: InputReader): boolean {
  return boolean(input, 'diagnostics-on-failure', true);
}

/** GitHub's own limit: a repository or organisation may keep artifacts at most 400 days. */
const MAX_RETENTION_DAYS = 400;

/**
 * Input diagnostics-retention-days: how many days GitHub keeps the diagnostics artifact; 0 leaves
 * it to the repository's setting, which also caps any number given (docs/diagnostics.md#the-github-action).
 */
export function readDiagnosticsRetentionDays(input: InputReader): number {
  const text = input('diagnostics-retention-days') || '7';
  if (!/^\d{1,3}$/.test(text) || Number(text) > MAX_RETENTION_DAYS)
    throw new InputError(
      `Input "diagnostics-retention-days" is "${text}"; expected a whole number of days from 0 (the repository's default) to ${MAX_RETENTION_DAYS}`,
    );
  return Number(text);
}

/** `auth: github-oidc`: the token exchange and the audience the job's ID token is asked for. */
export interface OidcAuth {
  endpoint: ExchangeEndpoint;
  audience: string;
}

/** A CA input: PEM, or base64 of PEM; undefined when unset. */
function certificateAuthority(value: string): string | undefined {
  return value && !value.includes('-----BEGIN')
    ? Buffer.from(value, 'base64').toString()
    : value || undefined;
}

function httpsUrl(input: InputReader, name: string): string {
  const value = input(name);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Said below.
  }
  if (url?.protocol !== 'https:')
    throw new InputError(`Input "${name}" is "${value}"; expected an https:// URL`);
  return value;
}

/**
 * Input auth: `token` (the default: management-kubeconfig, or management-server and
 * management-token) or `github-oidc`: the job's OIDC ID token exchanged at token-exchange-url
 * for a short-lived token (docs/ci-identities.md#the-github-action).
 */
export function readOidcAuth(input: InputReader): OidcAuth | undefined {
  const auth = choice(input, 'auth', ['token', 'github-oidc'], 'token');
  if (auth === 'token') return undefined;
  if (!input('token-exchange-url'))
    throw new InputError(
      'Input "token-exchange-url" is not set; with auth github-oidc, name the operator\'s token exchange (https://<route host>/v1/token)',
    );
  return {
    endpoint: {
      url: httpsUrl(input, 'token-exchange-url'),
      certificateAuthority: certificateAuthority(input('token-exchange-certificate-authority')),
    },
    audience: input('oidc-audience') || 'guestcluster',
  };
}

/**
 * The management cluster: a kubeconfig, or a server and token with an optional CA; with
 * `auth: github-oidc` a server and CA only (the token comes from the exchange).
 */
export function readAccess(input: InputReader): KubeconfigContext {
  const kubeconfig = input('management-kubeconfig');
  const server = input('management-server');
  const token = input('management-token');
  if (input('auth') === 'github-oidc') {
    if (kubeconfig || token)
      throw new InputError(
        'Input "auth" is github-oidc: give "management-server" (and "management-certificate-authority"), not "management-token" or "management-kubeconfig"',
      );
    return serverOnly(input, server);
  }
  if (kubeconfig && (server || token))
    throw new InputError(
      'Inputs "management-kubeconfig" and "management-server"/"management-token" exclude each other; give one way in',
    );
  if (kubeconfig) {
    try {
      return parseKubeconfig(kubeconfig);
    } catch (error) {
      if (error instanceof KubeconfigError)
        throw new InputError(`Input "management-kubeconfig" ${error.message}`);
      throw error;
    }
  }
  if (!server || !token)
    throw new InputError(
      'The management cluster is not set: give input "management-kubeconfig", or "management-server" and "management-token"',
    );
  return { ...serverOnly(input, server), token };
}

function serverOnly(input: InputReader, server: string): KubeconfigContext {
  if (!server)
    throw new InputError('Input "management-server" is not set: name the management cluster');
  return {
    server: httpsUrl(input, 'management-server').replace(/\/+$/, ''),
    ca: certificateAuthority(input('management-certificate-authority')),
    insecureSkipTlsVerify: false,
  };
}

function checkName(inputName: string, pattern: RegExp, value: string, max: number): string {
  if (value.length > max || !pattern.test(value))
    throw new InputError(
      `Input "${inputName}" is "${value}"; expected a Kubernetes name (lower-case letters, digits and "-", at most ${max} characters)`,
    );
  return value;
}

/** Reads and checks every input of the main step; the first bad one throws an InputError. */
export function readSettings(input: InputReader, run: GitHubRun, env: NodeJS.ProcessEnv): Settings {
  const auth = readOidcAuth(input);
  const access = readAccess(input);
  const namespace = input('namespace') || access.namespace || '';
  if (!namespace)
    throw new InputError('Input "namespace" is not set, and the kubeconfig\'s context names none');
  checkName('namespace', DNS_LABEL, namespace, 63);
  const pool = input('pool');
  if (!pool) throw new InputError('Input "pool" is not set: name the ClusterPool to lease from');
  checkName('pool', DNS_SUBDOMAIN, pool, 253);
  const leaseName =
    input('lease-name') || defaultLeaseName(run) || `lease-${Date.now().toString(36)}`;
  checkName('lease-name', DNS_SUBDOMAIN, leaseName, MAX_LEASE_NAME);
  const expectedOcpVersion = input('expected-ocp-version') || undefined;
  // The lease's spec.ocpVersion takes the same: the operator binds only a matching cluster.
  if (expectedOcpVersion && !/^\d+\.\d+(\.\d+)?$/.test(expectedOcpVersion))
    throw new InputError(
      `Input "expected-ocp-version" is "${expectedOcpVersion}"; expected a minor such as 4.16 (any 4.16.z) or an exact version such as 4.16.10`,
    );
  const runnerTemp = env.RUNNER_TEMP || os.tmpdir();
  return {
    access,
    auth,
    namespace,
    pool,
    ttl: atMost(duration(input, 'ttl', '6h'), 'ttl', MAX_LEASE_TTL_MS, '8760h (365 days)'),
    timeoutMs: positive(duration(input, 'timeout', '30m'), 'timeout'),
    requestedBy: input('requested-by') || defaultRequestedBy(run),
    leaseName,
    expectedTopology: choice(input, 'expected-topology', ['crc', 'hcp']),
    expectedOcpVersion,
    onMismatch: choice(input, 'on-mismatch', ['fail', 'warn'], 'fail')!,
    release: boolean(input, 'release', true),
    holdOnFailureMs: parseGoDuration(
      atMost(duration(input, 'hold-on-failure', '0'), 'hold-on-failure', MAX_LEASE_TTL_MS, '8760h'),
    )!,
    // Post reads it; checked here too, so that a bad value fails the step now, not after a failed job.
    diagnosticsRetentionDays: readDiagnosticsRetentionDays(input),
    kubeconfigPath:
      input('kubeconfig-path') || path.join(runnerTemp, 'guestcluster', `${leaseName}.kubeconfig`),
    kubeconfigRoot: input('kubeconfig-path') ? undefined : runnerTemp,
  };
}
