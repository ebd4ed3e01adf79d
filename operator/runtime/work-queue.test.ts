import { describe, expect, it, jest } from '@jest/globals';
import type { Clock } from './clock.js';
import { MAX_TIMER_MS, WorkQueue } from './work-queue.js';

/** A clock whose timers fire only when the test advances time. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  const timers = new Set<{ at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout: (callback, ms) => {
      const timer = { at: now + ms, callback };
      timers.add(timer);
      return timer as unknown as NodeJS.Timeout;
    },
    clearTimeout: (timer) =>
      void timers.delete(timer as unknown as { at: number; callback: () => void }),
    advance(ms) {
      now += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at <= now) {
          timers.delete(timer);
          timer.callback();
        }
      }
    },
  };
}

describe('WorkQueue', () => {
  it('holds a waiting key once however often it is added', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never hands out a key that is being processed; re-adds it after done', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    expect(queue.length).toBe(0);
    queue.done(first!);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const queue = new WorkQueue({ name: 'test' });
    const next = queue.get();
    queue.add('x');
    await expect(next).resolves.toBe('x');
  });

  it('delays adds, keeping the earliest pending one', async () => {
    const clock = manualClock();
    const queue = new WorkQueue({ name: 'test', clock });
    queue.addAfter('a', 1000);
    queue.addAfter('a', 500);
    queue.addAfter('a', 2000);
    clock.advance(499);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    clock.advance(5000);
    expect(queue.length).toBe(0);
  });

  it("arms no timer beyond Node's maximum: a 720h delay fires at its time, not at once", () => {
    const clock = manualClock();
    const armed: number[] = [];
    const setTimer = clock.setTimeout.bind(clock);
    clock.setTimeout = (callback, ms) => (armed.push(ms), setTimer(callback, ms));
    const queue = new WorkQueue({ name: 'test', clock });
    const hours720 = 720 * 3_600_000;
    queue.addAfter('ttl', hours720);
    expect(Math.max(...armed)).toBeLessThanOrEqual(MAX_TIMER_MS);
    clock.advance(MAX_TIMER_MS);
    // Re-armed for the rest, without handing the key out early.
    expect(queue.length).toBe(0);
    expect(armed).toEqual([MAX_TIMER_MS, hours720 - MAX_TIMER_MS]);
    clock.advance(hours720 - MAX_TIMER_MS - 1);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
  });

  it('keeps an earlier delayed add over a later one across re-arming', () => {
    const clock = manualClock();
    const queue = new WorkQueue({ name: 'test', clock });
    queue.addAfter('k', 3 * MAX_TIMER_MS);
    clock.advance(MAX_TIMER_MS);
    queue.addAfter('k', 10);
    clock.advance(10);
    expect(queue.length).toBe(1);
  });

  it('backs off per key exponentially and resets on forget', () => {
    const clock = manualClock();
    const queue = new WorkQueue({ name: 'test', clock, backoff: { baseMs: 100, maxMs: 10_000 } });
    const arrivals: number[] = [];
    const add = jest.spyOn(queue, 'add').mockImplementation(() => void arrivals.push(clock.now()));
    for (let attempt = 1; attempt <= 3; attempt++) {
      const before = arrivals.length;
      queue.addRateLimited('k');
      while (arrivals.length === before) clock.advance(1);
    }
    expect(arrivals).toEqual([100, 300, 700]);
    expect(queue.numRequeues('k')).toBe(3);
    queue.forget('k');
    queue.addRateLimited('k');
    clock.advance(100);
    expect(arrivals).toEqual([100, 300, 700, 800]);
    add.mockRestore();
  });

  it('releases waiting workers on shutdown', async () => {
    const queue = new WorkQueue({ name: 'test' });
    const waiting = queue.get();
    queue.shutDown();
    await expect(waiting).resolves.toBeUndefined();
    queue.add('late');
    expect(queue.length).toBe(0);
  });
});
