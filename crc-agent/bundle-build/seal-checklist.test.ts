import { describe, expect, it } from '@jest/globals';
import { SEAL_CHECKS, sealMarker, sealVerdict } from './seal-checklist.js';

describe('the seal verdict', () => {
  const all = SEAL_CHECKS.map((name) => ({ name, passed: true, detail: 'ok' }));
  it('passes only when every check was reported and passed', () => {
    expect(sealVerdict(all)).toEqual({ failed: [], checked: SEAL_CHECKS.length });
  });
  it('names a failed check with its detail, and a check that was never reported', () => {
    const checks = all
      .filter((c) => c.name !== 'tap0')
      .map((c) => (c.name === 'kubelet-disabled' ? { ...c, passed: false, detail: 'enabled' } : c));
    expect(sealVerdict(checks)).toEqual({
      failed: ['kubelet-disabled (enabled)', 'tap0 (not reported)'],
      checked: SEAL_CHECKS.length - 2,
    });
  });
});

describe('the pull-secret marker', () => {
  it("is the first auth entry's token", () => {
    expect(
      sealMarker('{"auths":{"quay.io":{"auth":"c2VjcmV0LXRva2Vu"},"b":{"auth":"other"}}}'),
    ).toBe('c2VjcmV0LXRva2Vu');
    expect(sealMarker('{"auths":{"r":{"password":"long-password"}}}')).toBe('long-password');
  });
  it('is none for a secret without a usable token', () => {
    expect(sealMarker('{}')).toBeUndefined();
    expect(sealMarker('{"auths":{"r":{"auth":"short"}}}')).toBeUndefined();
  });
});
