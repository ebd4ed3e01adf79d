import type { BackoffPolicy } from '../../runtime/backoff.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { GitHubAnswer } from './github-api.js';
import type { UnknownRun } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/**
 * Whether the operator may send GitHub a request now: closed while a rate limit lasts (until
 * x-ratelimit-reset or Retry-After, as GitHub asks) and, after failures, for a backoff that
 * doubles with each failure in a row. One gate for every run: a rate limit and an outage concern
 * the credential, not a run.
 */
export class GitHubGate {
  private failures = 0;
  private closed: UnknownRun | undefined;

  constructor(private readonly backoff: BackoffPolicy) {}

  /** Why no request may go out now, and until when; undefined when one may. */
  closedAt(now: number): UnknownRun | undefined {
    return this.closed && now < this.closed.retryAtMs ? this.closed : undefined;
  }

  /** Learns from an answer; the credential's own trouble (`invalid`) counts as a failure. */
  record(answer: GitHubAnswer<unknown> | { kind: 'invalid'; message: string }, now: number): void {
    switch (answer.kind) {
      case 'ok':
      case 'not-modified':
        this.failures = 0;
        this.closed = answer.rateLimitedUntilMs
          ? this.close(
              RunReason.RateLimited,
              'the rate limit is used up',
              answer.rateLimitedUntilMs,
            )
          : undefined;
        return;
      case 'not-found':
        // An answer: GitHub is there; the run is what is missing (see RunAnswers).
        this.failures = 0;
        return;
      case 'rate-limited':
        this.failures += 1;
        this.closed = this.close(
          RunReason.RateLimited,
          `rate limited (${answer.message})`,
          answer.untilMs ?? now + this.delay(),
        );
        return;
      case 'unavailable':
        this.failures += 1;
        this.closed = this.close(
          RunReason.GitHubUnavailable,
          `GitHub did not answer (${answer.message})`,
          Math.max(answer.untilMs ?? 0, now + this.delay()),
        );
        return;
      case 'rejected':
        this.failures += 1;
        this.closed = this.close(
          RunReason.CredentialRejected,
          `GitHub refused the operator's credential (${answer.message})`,
          now + this.delay(),
        );
        return;
      case 'invalid':
        this.failures += 1;
        this.closed = this.close(RunReason.CredentialInvalid, answer.message, now + this.delay());
        return;
    }
  }

  /** The delay before the next try after `failures` failures in a row. */
  private delay(): number {
    return backoffDelay(this.backoff, this.failures);
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
