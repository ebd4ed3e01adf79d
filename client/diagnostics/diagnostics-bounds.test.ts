import { describe, expect, it } from '@jest/globals';
import { tail, truncated } from './diagnostics-bounds.js';

describe('diagnostics bounds', () => {
  it('cuts a text to its bound with a marker naming what was cut', () => {
    const cut = truncated('x'.repeat(5000), 1000);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(/…\[truncated: \d+ more bytes\]$/);
    expect(truncated('short', 1000)).toBe('short');
  });

  it('keeps the last lines of a log within lines and bytes, marking the cut', () => {
    const log = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const kept = tail(log, 200, 64 * 1024);
    expect(kept.split('\n')).toHaveLength(201);
    expect(kept.split('\n')[0]).toBe('…[truncated: 300 earlier lines]');
    expect(kept.endsWith('line 499')).toBe(true);
    const small = tail(log, 200, 100);
    expect(Buffer.byteLength(small.split('\n').slice(1).join('\n'))).toBeLessThanOrEqual(100);
    expect(small).toMatch(/^…\[truncated: 300 earlier lines and \d+ bytes\]\n/);
    expect(tail('one\ntwo\n', 200, 1000)).toBe('one\ntwo');
  });
});
