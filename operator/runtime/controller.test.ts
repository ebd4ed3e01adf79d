import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { pino } from 'pino';
import { ApiError } from '../../client/kube/api-error.js';
import { systemClock } from './clock.js';
import { Controller, sooner } from './controller.js';
import { RuntimeMetrics } from './metrics.js';

describe('Controller with a coalescing window', () => {
  beforeEach(() => void jest.useFakeTimers());
  afterEach(() => void jest.useRealTimers());

  function controller(passes: string[]): Controller {
    return new Controller({
      name: 'pools',
      reconcile: (key) => Promise.resolve(void passes.push(key)),
      workers: 1,
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      clock: systemClock,
      coalesceMs: 50,
    });
  }

  it('gives a burst of events one pass, once the window has passed', async () => {
    const passes: string[] = [];
    const pools = controller(passes);
    pools.start();
    pools.enqueue('ns/a');
    pools.enqueue('ns/a');
    pools.enqueue('ns/b');
    await jest.advanceTimersByTimeAsync(49);
    pools.enqueue('ns/a');
    expect(passes).toEqual([]);
    expect(pools.queue.length).toBe(0);

    await jest.advanceTimersByTimeAsync(1);
    expect(passes.sort()).toEqual(['ns/a', 'ns/b']);

    // The next event opens a new window.
    pools.enqueue('ns/a');
    await jest.advanceTimersByTimeAsync(50);
    expect(passes.sort()).toEqual(['ns/a', 'ns/a', 'ns/b']);
    await pools.stop();
  });

  it('drops the keys still waiting when it stops', async () => {
    const passes: string[] = [];
    const pools = controller(passes);
    pools.start();
    pools.enqueue('ns/a');
    await pools.stop();
    await jest.advanceTimersByTimeAsync(100);
    expect(passes).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('Controller retries', () => {
  async function run(
    failure: Error,
  ): Promise<{ passes: number; warnings: string[]; metrics: string }> {
    const lines: string[] = [];
    const metrics = new RuntimeMetrics();
    let passes = 0;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const controller = new Controller({
      name: 'leases',
      reconcile: () => {
        passes += 1;
        if (passes === 1) return Promise.reject(failure);
        settle();
        return Promise.resolve();
      },
      workers: 1,
      logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
      metrics,
      clock: systemClock,
    });
    controller.start();
    controller.enqueue('ns/a');
    await settled;
    await controller.stop();
    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level >= 40)
      .map((entry) => entry.msg);
    return { passes, warnings, metrics: await metrics.registry.metrics() };
  }

  it('retries a write conflict quietly, counting it apart from errors', async () => {
    const { passes, warnings, metrics } = await run(
      new ApiError(409, 'Conflict', 'the object has been modified'),
    );
    expect(passes).toBe(2);
    expect(warnings).toEqual([]);
    expect(metrics).toMatch(
      /guestcluster_reconcile_total\{controller="leases",result="conflict"\} 1/,
    );
    expect(metrics).not.toMatch(/guestcluster_reconcile_errors_total\{controller="leases"\}/);
  });

  it('retries any other failure with a warning', async () => {
    const { passes, warnings, metrics } = await run(new ApiError(500, 'InternalError', 'etcd'));
    expect(passes).toBe(2);
    expect(warnings).toEqual(['Reconcile failed; retrying with backoff']);
    expect(metrics).toMatch(/guestcluster_reconcile_errors_total\{controller="leases"\} 1/);
  });
});

describe('Controller deadlines', () => {
  beforeEach(() => void jest.useFakeTimers());
  afterEach(() => void jest.useRealTimers());

  it('passes again at a deadline that time reached while the pass was under way', async () => {
    const deadline = Date.now() + 60_000;
    const passes: number[] = [];
    const controller = new Controller({
      name: 'leases',
      reconcile: async () => {
        passes.push(Date.now());
        // The pass takes its time: the deadline it names is past once it returns.
        if (passes.length === 1) await jest.advanceTimersByTimeAsync(61_000);
        return passes.length === 1 ? { requeueAt: deadline } : {};
      },
      workers: 1,
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      clock: systemClock,
    });
    controller.start();
    controller.enqueue('ns/a');
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(0);
    expect(passes).toHaveLength(2);
    // The second pass came at once, not a minute after the first one ended.
    expect(passes[1]! - passes[0]!).toBeLessThan(62_000);
    await controller.stop();
  });

  it('takes the sooner of a delay and a deadline', () => {
    expect(sooner({ requeueAt: 5 }, { requeueAt: 3, requeueAfterMs: 10 })).toEqual({
      requeueAt: 3,
      requeueAfterMs: 10,
    });
    expect(sooner({}, {})).toEqual({});
  });
});
