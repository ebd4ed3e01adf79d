import { describe, expect, test } from '@jest/globals';
import { CancelledError, RetryTimeoutError } from './errors.js';
import { retry } from './retry.js';

// Intervals are long on purpose: every case ends through a result, a cancellation or the deadline
// before a second interval could pass, so no case depends on how fast the machine is.
describe('retry', () => {
  test('retries through "not yet" until a result', async () => {
    let calls = 0;
    const result = await retry({
      what: 'x',
      intervalMs: 1,
      timeoutMs: 60_000,
      signal: new AbortController().signal,
      attempt: () => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('invalid YAML'));
        return Promise.resolve(calls === 3 ? 'done' : undefined);
      },
    });
    expect([result, calls]).toEqual(['done', 3]);
  });

  test('makes no attempt when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    let calls = 0;
    const run = retry({
      what: 'x',
      intervalMs: 60_000,
      timeoutMs: 60_000,
      signal: controller.signal,
      attempt: () => Promise.resolve(++calls),
    });
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(calls).toBe(0);
  });

  test('stops after the attempt during which it was cancelled', async () => {
    const controller = new AbortController();
    let calls = 0;
    const run = retry({
      what: 'x',
      intervalMs: 60_000,
      timeoutMs: 600_000,
      signal: controller.signal,
      attempt: () => {
        calls++;
        controller.abort(new Error('VMI gone'));
        return Promise.reject(new Error('not yet'));
      },
    });
    await expect(run).rejects.toThrow('cancelled: VMI gone');
    expect(calls).toBe(1);
  });

  test('on timeout names what it waited for and the last error', async () => {
    const run = retry({
      what: 'the guest kubeconfig',
      intervalMs: 60_000,
      timeoutMs: 1,
      signal: new AbortController().signal,
      attempt: () => Promise.reject(new Error('cat: No such file')),
    });
    await expect(run).rejects.toBeInstanceOf(RetryTimeoutError);
    await expect(run).rejects.toThrow(
      'timed out after 1ms waiting for the guest kubeconfig; last error: cat: No such file',
    );
  });

  test('on timeout names the last real error, not the attempt the deadline cut short', async () => {
    let calls = 0;
    const run = retry({
      what: 'SSH on 127.0.0.1:22 to accept connections',
      intervalMs: 1,
      timeoutMs: 500,
      signal: new AbortController().signal,
      attempt: (signal) => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:22'));
        // The next probe is still under way when the deadline passes, and is cancelled.
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('probe cancelled')), {
            once: true,
          }),
        );
      },
    });
    await expect(run).rejects.toThrow(
      'timed out after 500ms waiting for SSH on 127.0.0.1:22 to accept connections; last error: connect ECONNREFUSED 127.0.0.1:22',
    );
    expect(calls).toBe(2);
  });
});
