import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { OffPathChecks } from './off-path-checks.js';

/** A check that ends when the test says so. */
function gate<T>(): { run: () => Promise<T>; pass: (value: T) => void; fail: (e: Error) => void } {
  let pass: (value: T) => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  const promise = new Promise<T>((resolve, reject) => {
    pass = resolve;
    fail = reject;
  });
  return { run: () => promise, pass, fail };
}

describe('checks off the reconcile path', () => {
  beforeEach(() => void jest.useFakeTimers());
  afterEach(() => void jest.useRealTimers());

  const make = (limit = 2): { checks: OffPathChecks<string>; done: string[] } => {
    const done: string[] = [];
    const checks = new OffPathChecks<string>({
      what: 'test check',
      limit,
      deadlineMs: 30_000,
      onDone: (key) => done.push(key),
    });
    return { checks, done };
  };

  it('starts a check, queues the key when it ends, and hands its outcome to one pass', async () => {
    const { checks, done } = make();
    const check = gate<string>();
    expect(checks.take('ns/a', 'uid-1', check.run)).toEqual({ pending: 'started' });
    expect(checks.take('ns/a', 'uid-1', check.run)).toEqual({ pending: 'running' });
    expect(checks.inFlight).toBe(1);
    check.pass('answered');
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['ns/a']);
    expect(checks.inFlight).toBe(0);
    expect(checks.take('ns/a', 'uid-1', check.run)).toEqual({
      outcome: { ok: true, value: 'answered' },
    });
    // Taken once: the next pass starts the next check.
    expect(checks.take('ns/a', 'uid-1', gate<string>().run)).toEqual({ pending: 'started' });
  });

  it('keeps a failure for the passes that wait, until a check succeeds', async () => {
    const { checks } = make();
    const failing = gate<string>();
    checks.take('ns/a', 'uid-1', failing.run);
    failing.fail(new Error('connection refused'));
    await jest.advanceTimersByTimeAsync(0);
    const taken = checks.take('ns/a', 'uid-1', failing.run);
    expect(taken).toEqual({ outcome: { ok: false, error: new Error('connection refused') } });
    expect(checks.lastFailure('ns/a')).toBe('connection refused');
    const next = gate<string>();
    checks.take('ns/a', 'uid-1', next.run);
    next.pass('ok');
    await jest.advanceTimersByTimeAsync(0);
    expect(checks.lastFailure('ns/a')).toBeUndefined();
  });

  it('runs at most `limit` checks at once; the others wait for a later pass', async () => {
    const { checks } = make(2);
    const first = gate<string>();
    expect(checks.take('ns/a', 'x', first.run)).toEqual({ pending: 'started' });
    expect(checks.take('ns/b', 'x', gate<string>().run)).toEqual({ pending: 'started' });
    const third = jest.fn(() => Promise.resolve('never run'));
    expect(checks.take('ns/c', 'x', third)).toEqual({ pending: 'full' });
    expect(third).not.toHaveBeenCalled();
    first.pass('ok');
    await jest.advanceTimersByTimeAsync(0);
    expect(checks.take('ns/c', 'x', third)).toEqual({ pending: 'started' });
  });

  it('fails a check that outlives its deadline and frees its place', async () => {
    const { checks, done } = make(1);
    checks.take('ns/a', 'x', () => new Promise<string>(() => undefined));
    await jest.advanceTimersByTimeAsync(29_999);
    expect(checks.take('ns/b', 'x', gate<string>().run)).toEqual({ pending: 'full' });
    await jest.advanceTimersByTimeAsync(1);
    expect(done).toEqual(['ns/a']);
    expect(checks.take('ns/a', 'x', gate<string>().run)).toEqual({
      outcome: { ok: false, error: new Error('test check did not end within 30s') },
    });
    expect(checks.inFlight).toBe(0);
  });

  it('drops the outcome of a check of something else (another UID, another endpoint)', async () => {
    const { checks } = make();
    const old = gate<string>();
    checks.take('ns/a', 'uid-1', old.run);
    old.pass('the old instance answered');
    await jest.advanceTimersByTimeAsync(0);
    expect(checks.take('ns/a', 'uid-2', gate<string>().run)).toEqual({ pending: 'started' });
  });

  it('keeps at most maxKept outcomes waiting for their pass', async () => {
    const done: string[] = [];
    const checks = new OffPathChecks<string>({
      what: 'test check',
      limit: 10,
      deadlineMs: 30_000,
      onDone: (key) => done.push(key),
      maxKept: 2,
    });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) checks.take(key, 'x', () => Promise.resolve(key));
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['ns/a', 'ns/b', 'ns/c']);
    // The oldest outcome was forgotten: its pass starts a check again.
    expect(checks.take('ns/a', 'x', gate<string>().run)).toEqual({ pending: 'started' });
    expect(checks.take('ns/c', 'x', gate<string>().run)).toEqual({
      outcome: { ok: true, value: 'ns/c' },
    });
  });
});
