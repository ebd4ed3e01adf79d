import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../kube/api-error.js';
import type { RetryOptions } from './retry.js';
import { RetriesExhaustedError, retryWithin } from './retry.js';

const options = (budgetMs: number, retries: number[][] = []): RetryOptions => ({
  budgetMs,
  attemptTimeoutMs: 1000,
  baseDelayMs: 10,
  maxDelayMs: 40,
  onRetry: (_error, attempt, delayMs) => void retries.push([attempt, delayMs]),
});

describe('retryWithin', () => {
  it('tries again after network errors and overload, waiting longer each time', async () => {
    const failures = [
      new TypeError('fetch failed'),
      new ApiError(503, 'ServiceUnavailable', 'x'),
      new ApiError(429, 'TooManyRequests', 'y'),
    ];
    const retries: number[][] = [];
    const result = await retryWithin(
      () => {
        const failure = failures.shift();
        return failure ? Promise.reject(failure) : Promise.resolve('done');
      },
      options(5000, retries),
    );
    expect(result).toBe('done');
    expect(retries).toEqual([
      [1, 10],
      [2, 20],
      [3, 40],
    ]);
  });

  it('does not try again what the apiserver refused for good', async () => {
    let attempts = 0;
    const forbidden = new ApiError(403, 'Forbidden', 'no');
    await expect(
      retryWithin(() => (attempts++, Promise.reject(forbidden)), options(5000)),
    ).rejects.toBe(forbidden);
    expect(attempts).toBe(1);
  });

  it('gives up when the budget is spent, saying how often it tried', async () => {
    const started = Date.now();
    const error = await retryWithin(
      () => Promise.reject(new ApiError(503, 'ServiceUnavailable', 'etcd is not ready')),
      options(200),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).attempts).toBeGreaterThan(2);
    expect((error as RetriesExhaustedError).message).toBe('etcd is not ready');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('cuts off an attempt that hangs, and tries again', async () => {
    let attempts = 0;
    const result = await retryWithin(
      (signal) =>
        ++attempts === 1
          ? new Promise((_, reject) =>
              signal.addEventListener('abort', () => reject(new Error('cut off'))),
            )
          : Promise.resolve(attempts),
      { ...options(5000), attemptTimeoutMs: 50 },
    );
    expect(result).toBe(2);
  });
});
