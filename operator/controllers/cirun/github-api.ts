import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Logger } from '../../runtime/logger.js';
import type { GitHubCredential } from './github-credential.js';
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

/** What one request to GitHub came back with, sorted by what the caller does next. */
export type GitHubAnswer<T> =
  | { kind: 'ok'; data: T; etag?: string; rateLimitedUntilMs?: number }
  /** 304 to a conditional request: the data of the ETag still holds (and cost no rate limit). */
  | { kind: 'not-modified'; rateLimitedUntilMs?: number }
  | { kind: 'not-found'; message: string }
  /** Primary or secondary rate limit; `untilMs` from Retry-After or x-ratelimit-reset when given. */
  | { kind: 'rate-limited'; message: string; untilMs?: number }
  /** 401 and other refusals: the credential or its permissions. */
  | { kind: 'rejected'; message: string }
  /** 5xx, a timeout or no connection. */
  | { kind: 'unavailable'; message: string; untilMs?: number };

const REQUEST_TIMEOUT_MS = 30_000;
const JOBS_ROUTE = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';

interface ErrorWithResponse {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined> };
}

/**
 * The GitHub REST API with the operator's credential: octokit's core client, with its App
 * authentication strategy minting (and caching) installation tokens. Requests go to the
 * configured API URL only, and every answer is classified rather than thrown.
 */
export class GitHubApi {
  private readonly octokit: Octokit;

  constructor(
    apiUrl: string,
    credential: GitHubCredential,
    logger: Logger,
    private readonly now: () => number,
    caCertificates?: string,
  ) {
    const dispatcher = caCertificates ? new Agent({ connect: { ca: caCertificates } }) : undefined;
    const fetch = dispatcher
      ? (url: string, init: object): ReturnType<typeof undiciFetch> =>
          undiciFetch(url, { ...init, dispatcher })
      : undefined;
    const log = {
      debug: (message: string) => logger.debug({ component: 'github' }, message),
      info: (message: string) => logger.debug({ component: 'github' }, message),
      warn: (message: string) => logger.warn({ component: 'github' }, message),
      error: (message: string) => logger.warn({ component: 'github' }, message),
    };
    const common = {
      baseUrl: apiUrl,
      userAgent: 'guestcluster-operator',
      log,
      request: { ...(fetch ? { fetch } : {}), redirect: 'error' as const },
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
        request: { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) },
      });
      const headers = response.headers as Record<string, string | undefined>;
      return {
        kind: 'ok',
        data: response.data as JobsPage,
        etag: headers.etag,
        rateLimitedUntilMs: this.exhaustedUntil(headers),
      };
    } catch (error) {
      return this.classify(error as ErrorWithResponse);
    }
  }

  private classify(error: ErrorWithResponse): GitHubAnswer<never> {
    const status = error.status ?? 0;
    const headers = error.response?.headers;
    const message = (error.message ?? 'unknown error').slice(0, 300);
    if (!headers) return { kind: 'unavailable', message: `no answer from GitHub: ${message}` };
    if (status === 304)
      return { kind: 'not-modified', rateLimitedUntilMs: this.exhaustedUntil(headers) };
    if (status === 404) return { kind: 'not-found', message: `404 ${message}` };
    // Rate limits answer 403 or 429: the primary one with x-ratelimit-remaining 0 (wait for
    // x-ratelimit-reset), secondary ones with Retry-After or, without it, "wait at least a minute".
    const retryAfter = this.retryAfter(headers);
    const exhausted = this.exhaustedUntil(headers);
    if (
      status === 429 ||
      (status === 403 && (retryAfter || exhausted || /rate limit/i.test(message)))
    )
      return {
        kind: 'rate-limited',
        message: `${status} ${message}`,
        untilMs: retryAfter ?? exhausted,
      };
    if (status >= 500)
      return { kind: 'unavailable', message: `${status} ${message}`, untilMs: retryAfter };
    return { kind: 'rejected', message: `${status} ${message}` };
  }

  private retryAfter(headers: Record<string, string | undefined>): number | undefined {
    const seconds = Number(headers['retry-after']);
    return headers['retry-after'] && Number.isFinite(seconds)
      ? this.now() + seconds * 1000
      : undefined;
  }

  /** x-ratelimit-reset (epoch seconds) when the window's requests are used up. */
  private exhaustedUntil(headers: Record<string, string | undefined>): number | undefined {
    if (headers['x-ratelimit-remaining'] !== '0') return undefined;
    const reset = Number(headers['x-ratelimit-reset']);
    return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
  }
}
