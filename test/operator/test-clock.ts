import type { Clock } from '../../operator/runtime/clock.js';

/**
 * Real time that a test can move forward: now() is the wall clock plus an offset, and a timer
 * fires when its due time is reached either way (real time passing, or advance()).
 */
export class TestClock implements Clock {
  private offset = 0;
  private readonly timers = new Map<NodeJS.Timeout, { due: number; callback: () => void }>();

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(callback: () => void, ms: number): NodeJS.Timeout {
    const timer: NodeJS.Timeout = setTimeout(() => this.fire(timer), ms);
    this.timers.set(timer, { due: this.now() + ms, callback });
    return timer;
  }

  clearTimeout(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /** Moves time forward and fires every timer that is now due. */
  advance(ms: number): void {
    this.offset += ms;
    for (const [timer, { due }] of [...this.timers]) if (due <= this.now()) this.fire(timer);
  }

  private fire(timer: NodeJS.Timeout): void {
    const entry = this.timers.get(timer);
    if (!entry) return;
    this.clearTimeout(timer);
    entry.callback();
  }
}
