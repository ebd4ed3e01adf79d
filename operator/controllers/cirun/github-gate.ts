import type { BackoffPolicy } from '../../runtime/backoff.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { UnknownRun } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/** A signal about the whole API or the credential. */
export interface GateSignal {
  reason: RunReason;
  detail: string;
  untilMs?: number;
}

/**
 * A 5xx or a timeout closes the gate only when this many runs, of at least OUTAGE_NAMESPACES
 * namespaces, saw one in a row: GitHub failing, not one run that GitHub cannot serve (a tenant
 * can name such runs; it cannot name those of other namespaces).
 */
const OUTAGE_RUNS = 3;
const OUTAGE_NAMESPACES = 2;

/**
 * Whether the operator may send GitHub a request now, for any run: closed while a rate limit
 * lasts (until x-ratelimit-reset or Retry-After, as GitHub asks), and after a refused credential,
 * no connection, or 5xx and timeouts across runs, for a backoff that doubles with each failure in
 * a row. Answers about one run or repository never close it
 * (docs/reference/kinds.md#what-holds-reclaim-back).
 */
export class GitHubGate {
  private failures = 0;
  private closed: UnknownRun | undefined;
  /** The runs (and their namespaces) whose request failed with a 5xx or a timeout since the last answer. */
  private readonly outage = new Map<string, string>();

  constructor(private readonly backoff: BackoffPolicy) {}

  /** Why no request may go out now, and until when; undefined when one may. */
  closedAt(now: number): UnknownRun | undefined {
    return this.closed && now < this.closed.retryAtMs ? this.closed : undefined;
  }

  /** GitHub answered (2xx, 304, or a 4xx about a run or a repository): it is there. */
  answered(now: number, rateLimitedUntilMs?: number): void {
    this.failures = 0;
    this.outage.clear();
    this.closed =
      rateLimitedUntilMs && rateLimitedUntilMs > now
        ? this.close(RunReason.RateLimited, 'the rate limit is used up', rateLimitedUntilMs)
        : undefined;
  }

  /** A rate limit, a refused or invalid credential, or no connection to the API. */
  failed(signal: GateSignal, now: number): void {
    this.failures += 1;
    const delay = backoffDelay(this.backoff, this.failures);
    const retryAtMs =
      signal.reason === RunReason.RateLimited
        ? (signal.untilMs ?? now + delay)
        : Math.max(signal.untilMs ?? 0, now + delay);
    this.closed = this.close(signal.reason, describe(signal), retryAtMs);
  }

  /** A 5xx or a timeout about one run; the gate closes when runs of several namespaces see them. */
  runFailed(runKey: string, namespace: string, detail: string, now: number): void {
    this.outage.set(runKey, namespace);
    if (this.outage.size < OUTAGE_RUNS || new Set(this.outage.values()).size < OUTAGE_NAMESPACES)
      return;
    this.failed(
      {
        reason: RunReason.GitHubUnavailable,
        detail: `${this.outage.size} runs of ${new Set(this.outage.values()).size} namespaces in a row, the last: ${detail}`,
      },
      now,
    );
  }

  private close(reason: RunReason, what: string, retryAtMs: number): UnknownRun {
    return {
      kind: 'unknown',
      status: 'Unknown',
      reason,
      message: `${what}; next request to GitHub at ${new Date(retryAtMs).toISOString()}`,
      retryAtMs,
    };
  }
}

function describe(signal: GateSignal): string {
  switch (signal.reason) {
    case RunReason.RateLimited:
      return `rate limited (${signal.detail})`;
    case RunReason.CredentialRejected:
      return `GitHub refused the operator's credential (${signal.detail})`;
    case RunReason.GitHubUnavailable:
      return `GitHub did not answer (${signal.detail})`;
    default:
      return signal.detail;
  }
}
