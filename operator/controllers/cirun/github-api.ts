import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { GitHubAnswer } from './github-answer.js';
import { classifyFailure, rateLimitedUntil } from './github-answer.js';
import type { GitHubCredential } from './github-credential.js';
import type { GitHubProxy } from './github-settings.js';
import type { LeaseRun } from './lease-run.js';

/** A workflow job as the REST API returns it (the fields used here). */
export interface WorkflowJob {
  id: number;
  name: string;
  /** queued, in_progress, completed, waiting, requested or pending */
  status: string;
  /** success, failure, cancelled, skipped, … once completed; null before */
  conclusion: string | null;
  html_url?: string;
}

/** One page of GET …/actions/runs/{run_id}/attempts/{attempt_number}/jobs. */
export interface JobsPage {
  total_count: number;
  jobs: WorkflowJob[];
}

/** How long one request may take, on the operator's clock; GitHub itself gives up after 10 s. */
export const REQUEST_TIMEOUT_MS = 30_000;
const JOBS_ROUTE = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';

/** Where the client connects: the API root, its CA, and the pod's egress proxy. */
export interface GitHubEndpoint {
  apiUrl: string;
  /** PEM bundle for the API's certificate, and a TLS-inspecting proxy's; system roots when unset. */
  caCertificates?: string;
  proxy: GitHubProxy;
}

/** Thrown into a request that ran out of time, so that a timeout is told from a cut connection. */
class RequestTimeout extends Error {
  override name = 'RequestTimeout';
}

/**
 * The GitHub REST API with the operator's credential: octokit's core client, with its App
 * authentication strategy minting (and caching) installation tokens. Requests go to the
 * configured API URL only, through the pod's proxy unless NO_PROXY exempts the host; redirects
 * are answers, never followed; every request ends within REQUEST_TIMEOUT_MS; and every answer is
 * classified rather than thrown.
 */
export class GitHubApi {
  private readonly octokit: Octokit;

  constructor(
    endpoint: GitHubEndpoint,
    credential: GitHubCredential,
    logger: Logger,
    private readonly clock: Clock,
  ) {
    const log = {
      debug: (message: string) => logger.debug({ component: 'github' }, message),
      info: (message: string) => logger.debug({ component: 'github' }, message),
      warn: (message: string) => logger.warn({ component: 'github' }, message),
      error: (message: string) => logger.warn({ component: 'github' }, message),
    };
    const common = {
      baseUrl: endpoint.apiUrl,
      userAgent: 'guestcluster-operator',
      log,
      request: { fetch: this.fetchThrough(endpoint), redirect: 'manual' as const },
    };
    this.octokit =
      'token' in credential
        ? new Octokit({ ...common, auth: credential.token })
        : new Octokit({
            ...common,
            authStrategy: createAppAuth,
            auth: {
              appId: credential.appId,
              privateKey: credential.privateKey,
              installationId: credential.installationId,
            },
          });
  }

  /** One page of the run attempt's jobs, conditional on `etag` when given. */
  async attemptJobs(run: LeaseRun, page: number, etag?: string): Promise<GitHubAnswer<JobsPage>> {
    try {
      const response = await this.octokit.request(JOBS_ROUTE, {
        owner: run.owner,
        repo: run.repo,
        run_id: run.runId,
        attempt_number: run.attempt,
        per_page: 100,
        page,
        headers: etag ? { 'if-none-match': etag } : {},
      });
      const headers = response.headers as Record<string, string | undefined>;
      // A redirect is an answer here (a renamed or moved repository), not a place to go.
      if ((response.status as number) !== 200)
        return classifyFailure({ status: response.status, headers, aboutRun: true }, this.clock);
      return {
        kind: 'ok',
        data: response.data as JobsPage,
        etag: headers.etag,
        rateLimitedUntilMs: rateLimitedUntil(headers),
      };
    } catch (error) {
      return classifyFailure(failureOf(error), this.clock);
    }
  }

  /**
   * undici's fetch through the pod's proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), trusting the CA
   * bundle for the API's certificate, behind a CONNECT tunnel too, and for an HTTPS proxy's own;
   * each request, an App's token request included, is aborted on the operator's clock.
   */
  private fetchThrough(endpoint: GitHubEndpoint): typeof undiciFetch {
    const tls = endpoint.caCertificates ? { ca: endpoint.caCertificates } : {};
    const dispatcher = new EnvHttpProxyAgent({
      ...endpoint.proxy,
      connect: tls,
      requestTls: tls,
      proxyTls: tls,
    });
    return async (input, init) => {
      const timeout = new AbortController();
      const timer = this.clock.setTimeout(
        () => timeout.abort(new RequestTimeout(`no answer within ${REQUEST_TIMEOUT_MS / 1000}s`)),
        REQUEST_TIMEOUT_MS,
      );
      try {
        return await undiciFetch(input, { ...init, dispatcher, signal: timeout.signal });
      } finally {
        this.clock.clearTimeout(timer);
      }
    };
  }
}

interface ErrorWithResponse {
  status?: number;
  message?: string;
  cause?: unknown;
  request?: { url?: string };
  response?: { headers?: Record<string, string | undefined> };
}

/** What octokit threw, as the classification reads it. */
function failureOf(thrown: unknown): Parameters<typeof classifyFailure>[0] {
  const error = (thrown ?? {}) as ErrorWithResponse;
  return {
    status: error.status ?? 0,
    headers: error.response?.headers,
    message: error.message,
    // An App's token request fails about the credential, whatever run it was minted for.
    aboutRun: /\/actions\/runs\//.test(error.request?.url ?? ''),
    timedOut: error.cause instanceof RequestTimeout || thrown instanceof RequestTimeout,
  };
}
