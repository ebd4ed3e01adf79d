import { describe, expect, it } from '@jest/globals';
import { ReplayGuard } from './replay-guard.js';

describe('ReplayGuard', () => {
  it('accepts a jti once while its token is valid, and again after it expired', () => {
    let now = 1000;
    const guard = new ReplayGuard(10, { now: () => now, setTimeout, clearTimeout });
    expect(guard.firstUse('https://issuer', 'jti-1', 5000)).toBe(true);
    expect(guard.firstUse('https://issuer', 'jti-1', 5000)).toBe(false);
    // Another issuer's jti of the same value is another token.
    expect(guard.firstUse('https://other', 'jti-1', 5000)).toBe(true);
    now = 6000;
    expect(guard.firstUse('https://issuer', 'jti-1', 9000)).toBe(true);
  });

  it('holds at most its bound, whatever is sent', () => {
    const guard = new ReplayGuard(3, { now: () => 0, setTimeout, clearTimeout });
    for (let i = 0; i < 10; i++) guard.firstUse('https://issuer', `jti-${i}`, 1000);
    expect(guard.size).toBe(3);
  });
});
