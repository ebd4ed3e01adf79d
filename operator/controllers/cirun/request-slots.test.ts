import { describe, expect, it } from '@jest/globals';
import { RequestSlots } from './request-slots.js';

/** A request that ends when the test says so. */
function pending(): { promise: Promise<void>; end: () => void } {
  let end!: () => void;
  const promise = new Promise<void>((resolve) => (end = resolve));
  return { promise, end };
}

describe('the requests to GitHub at once', () => {
  it('runs at most so many, and lets the waiting namespaces take turns', async () => {
    const slots = new RequestSlots(1);
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    const request = (namespace: string, name: string): Promise<void> =>
      slots.run(namespace, () => {
        started.push(name);
        const { promise, end } = pending();
        ends.set(name, end);
        return promise;
      });
    const all = [
      request('greedy', 'g1'),
      request('greedy', 'g2'),
      request('greedy', 'g3'),
      request('modest', 'm1'),
    ];
    await Promise.resolve();
    expect(started).toEqual(['g1']);
    for (const name of ['g1', 'g2', 'm1']) {
      ends.get(name)!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    // One of the greedy namespace's, then the other namespace's, then the greedy one's again.
    expect(started).toEqual(['g1', 'g2', 'm1', 'g3']);
    ends.get('g3')!();
    await Promise.all(all);
  });
});
