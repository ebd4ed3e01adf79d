import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../kube/api-error.js';

export interface RetryOptions {
  /** No attempt starts after this long; one under way is cut off then. */
  budgetMs: number;
  /** Each attempt is cut off after this long (a stalled apiserver). */
  attemptTimeoutMs: number;
  /** The first wait between attempts; it doubles up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** An attempt failed and another follows after `delayMs`. */
  onRetry: (error: unknown, attempt: number, delayMs: number) => void;
}

/** The last failure of an operation that ran out of attempts: says how many and how long. */
export class RetriesExhaustedError extends Error {
  override name = 'RetriesExhaustedError';
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly last: unknown,
  ) {
    super(last instanceof Error ? last.message : String(last));
  }
}

/**
 * Errors that another attempt may not meet: the apiserver answered, and not with 429 or a 5xx.
 * Network failures, timeouts and overload are worth another try.
 */
export function isPermanent(error: unknown): boolean {
  return error instanceof ApiError && error.status < 500 && error.status !== 429;
}

/**
 * Runs `operation` until it succeeds, it fails permanently (thrown as it is), or the budget is
 * spent (RetriesExhaustedError), waiting with exponential backoff between attempts.
 */
export async function retryWithin<T>(
  operation: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const started = Date.now();
  const budget = AbortSignal.timeout(options.budgetMs);
  for (let attempt = 1; ; attempt++) {
    const signal = AbortSignal.any([budget, AbortSignal.timeout(options.attemptTimeoutMs)]);
    try {
      return await operation(signal);
    } catch (error) {
      if (isPermanent(error)) throw error;
      const wait = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      const left = options.budgetMs - (Date.now() - started);
      if (budget.aborted || left <= wait)
        throw new RetriesExhaustedError(attempt, Date.now() - started, error);
      options.onRetry(error, attempt, wait);
      await delay(wait);
    }
  }
}
