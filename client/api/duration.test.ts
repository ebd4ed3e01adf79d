import { describe, expect, it } from '@jest/globals';
import { parseGoDuration } from './duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['2h', 7_200_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
  ])('parses %s', (value, ms) => expect(parseGoDuration(value)).toBe(ms));

  it.each(['', '2', 'h', '1h 30m', '-1h', '2d'])('refuses %j', (value) =>
    expect(parseGoDuration(value)).toBeUndefined(),
  );
});
