import type { Clock } from '../../runtime/clock.js';
import { RunReason } from './reclaim-reasons.js';

/**
 * What one request to GitHub came back with, sorted by whom it concerns
 * (docs/reference/kinds.md#what-holds-reclaim-back): one run attempt, its repository, or the
 * API and the credential as a whole. Only the last closes the gate for every lease.
 */
export type GitHubAnswer<T> =
  | { kind: 'ok'; data: T; etag?: string; rateLimitedUntilMs?: number }
  /** 304 to a conditional request: the data of the ETag still holds (and cost no rate limit). */
  | { kind: 'not-modified'; rateLimitedUntilMs?: number }
  | RunFailure
  | RepositoryFailure
  | ApiFailure;

/** An answer about one run attempt (404, 410, 422, a 5xx, a timeout): that run waits. */
export interface RunFailure {
  kind: 'run';
  reason: RunReason;
  /** GitHub's status and message ("404 Not Found"), or what happened. */
  detail: string;
  /** When GitHub said to ask again (Retry-After). */
  untilMs?: number;
  /** A 5xx or a timeout: about this run, unless many runs see it at once (see GitHubGate). */
  outage: boolean;
}

/** An answer about the repository (a redirect, 403 without a rate limit, 451): its runs wait. */
export interface RepositoryFailure {
  kind: 'repository';
  reason: RunReason;
  detail: string;
  /** 403 with X-GitHub-SSO: the organisation wants the credential authorised for SAML SSO. */
  sso?: boolean;
}

/** A signal about the whole API or the credential: every request waits. */
export interface ApiFailure {
  kind: 'api';
  reason: RunReason;
  detail: string;
  untilMs?: number;
}

type Headers = Record<string, string | undefined>;

/** What a failed (or redirected) request left to go by. */
export interface FailedRequest {
  status: number;
  /** Absent when no HTTP answer came (a cut connection, a timeout, a refused proxy). */
  headers?: Headers;
  message?: string;
  /** Whether the request was the run's own (not an App's token request). */
  aboutRun: boolean;
  timedOut?: boolean;
}

/**
 * Sorts a failed request by whom it concerns. Rate limits (403 or 429 with Retry-After,
 * x-ratelimit-remaining 0, or GitHub's "rate limit" message), a refused credential (401, or any
 * failure of an App's token request) and no connection at all are about the API; a redirect
 * (renamed or transferred repository), 403 otherwise (SAML SSO, an IP allow list) and 451 are
 * about the repository; 404, 410, 422, the rest of 4xx, a 5xx and a timeout are about the run.
 */
export function classifyFailure(failed: FailedRequest, clock: Clock): GitHubAnswer<never> {
  const { status, headers, aboutRun } = failed;
  const detail = `${status} ${(failed.message ?? '').slice(0, 300)}`.trim();
  if (!headers) return unanswered(failed);
  if (status === 304)
    return { kind: 'not-modified', rateLimitedUntilMs: rateLimitedUntil(headers) };
  const retryAfter = retryAfterMs(headers, clock);
  const exhausted = rateLimitedUntil(headers);
  if (status === 429 || (status === 403 && (retryAfter || exhausted || /rate limit/i.test(detail))))
    return { kind: 'api', reason: RunReason.RateLimited, detail, untilMs: retryAfter ?? exhausted };
  if (status === 401 || !aboutRun)
    return { kind: 'api', reason: RunReason.CredentialRejected, detail };
  if (status >= 500)
    return {
      kind: 'run',
      reason: RunReason.GitHubUnavailable,
      detail,
      untilMs: retryAfter,
      outage: true,
    };
  return aboutTheRequest(status, detail, headers);
}

/** No HTTP answer: a timeout of the run's own request is the run's; anything else the API's. */
function unanswered(failed: FailedRequest): GitHubAnswer<never> {
  const what = (failed.message ?? 'unknown error').slice(0, 300);
  if (failed.timedOut && failed.aboutRun)
    return { kind: 'run', reason: RunReason.RequestTimedOut, detail: what, outage: true };
  return {
    kind: 'api',
    reason: RunReason.GitHubUnavailable,
    detail: `no answer from GitHub: ${what}`,
  };
}

/** A 3xx or 4xx to the run's request: about the repository or the run. */
function aboutTheRequest(status: number, detail: string, headers: Headers): GitHubAnswer<never> {
  if (status >= 300 && status < 400)
    return { kind: 'repository', reason: RunReason.RepositoryMoved, detail };
  if (status === 403)
    return {
      kind: 'repository',
      reason: RunReason.RepositoryAccessDenied,
      detail,
      sso: headers['x-github-sso'] !== undefined,
    };
  if (status === 451)
    return { kind: 'repository', reason: RunReason.RepositoryUnavailable, detail };
  const reason =
    status === 404
      ? RunReason.RunNotFound
      : status === 410
        ? RunReason.RunGone
        : RunReason.RequestRejected;
  return { kind: 'run', reason, detail, outage: false };
}

/** x-ratelimit-reset (epoch seconds) when the window's requests are used up. */
export function rateLimitedUntil(headers: Headers): number | undefined {
  if (headers['x-ratelimit-remaining'] !== '0') return undefined;
  const reset = Number(headers['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
}

function retryAfterMs(headers: Headers, clock: Clock): number | undefined {
  const seconds = Number(headers['retry-after']);
  return headers['retry-after'] && Number.isFinite(seconds)
    ? clock.now() + seconds * 1000
    : undefined;
}
