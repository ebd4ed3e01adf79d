import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { pino } from 'pino';
import { systemClock } from './clock.js';
import { Controller } from './controller.js';
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
