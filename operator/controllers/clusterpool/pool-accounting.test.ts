import { describe, expect, it } from '@jest/globals';
import { nextInstanceName } from './pool-accounting.js';

const named = (...names: string[]): { metadata: { name: string } }[] =>
  names.map((name) => ({ metadata: { name } }));

describe('nextInstanceName', () => {
  it.each([
    { taken: [], next: 'crc-0' },
    { taken: ['crc-0', 'crc-1'], next: 'crc-2' },
    { taken: ['crc-0', 'crc-2'], next: 'crc-1' },
    // Other pools' and other shapes of names do not count.
    { taken: ['crc-pool-0', 'crc-x', 'crc-01a'], next: 'crc-0' },
  ])('after $taken is $next', ({ taken, next }) => {
    expect(nextInstanceName('crc', named(...taken))).toBe(next);
  });
});
