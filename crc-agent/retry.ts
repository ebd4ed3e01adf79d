import { sleep } from './abort.js';
import { formatDuration } from './durations.js';
import { CancelledError, errorMessage, RetryTimeoutError } from './errors.js';

export interface RetryOptions<T> {
  /** What is awaited, for the timeout message ("guest /opt/kubeconfig to hold a cluster"). */
  what: string;
  intervalMs: number;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * One attempt. Returns the result, or throws / returns undefined for "not yet". Gets a signal
   * that fires on cancellation or when the deadline passes, so a slow attempt is cut short.
   */
  attempt: (signal: AbortSignal, attempt: number) => Promise<T | undefined>;
  /** Called after each failed attempt, e.g. to log progress. */
  onNotYet?: (attempt: number, lastError: string | undefined) => void;
  /** Leave the last error out of the timeout message (the cluster-operator wait does). */
  omitLastError?: boolean;
}

/**
 * Content-aware, cancellable retry: the first attempt is immediate, then one every `intervalMs`
 * until `timeoutMs` has passed. No attempt is made when the signal has already fired. On timeout
 * the error names what was awaited and the last error seen; on cancellation it is a
 * CancelledError that carries the cause.
 */
export async function retry<T>(options: RetryOptions<T>): Promise<T> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  let lastError: string | undefined;
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) throw new CancelledError(options.signal.reason);
    if (deadline.aborted) break;
    try {
      const result = await options.attempt(signal, attempt);
      if (result !== undefined) return result;
      lastError = undefined;
    } catch (error) {
      if (options.signal.aborted) throw new CancelledError(options.signal.reason);
      // An attempt the deadline cut short tells nothing about what was awaited: a busy machine
      // can start one just before the deadline. The error before it says why.
      if (!deadline.aborted || lastError === undefined) lastError = errorMessage(error);
    }
    options.onNotYet?.(attempt, lastError);
    try {
      await sleep(options.intervalMs, signal);
    } catch {
      if (options.signal.aborted) throw new CancelledError(options.signal.reason);
      break;
    }
  }
  const detail = options.omitLastError || !lastError ? '' : `; last error: ${lastError}`;
  throw new RetryTimeoutError(
    `timed out after ${formatDuration(options.timeoutMs)} waiting for ${options.what}${detail}`,
  );
}
