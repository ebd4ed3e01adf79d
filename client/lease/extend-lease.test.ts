import { describe, expect, it } from '@jest/globals';
import type { ApiClient } from '../kube/api-client.js';
import { ExtendError, deadlineText, extendLease } from './extend-lease.js';

describe('extendLease', () => {
  // Refused before any request: the client is never used.
  const api = {} as ApiClient;

  it.each([
    ['soon', 'TTL "soon" is not a duration such as 2h, 90m or 1h30m'],
    ['9000h', 'TTL "9000h" is above the maximum of 8760h'],
  ])('refuses %s before it asks the apiserver', async (ttl, message) => {
    await expect(extendLease(api, 'ci', 'l', ttl)).rejects.toThrow(new ExtendError(message));
  });

  it('puts the deadline at boundTime + ttl, in whole seconds, and none before binding', () => {
    expect(deadlineText('2026-01-01T00:00:00Z', 90 * 60_000)).toBe('2026-01-01T01:30:00Z');
    expect(deadlineText(undefined, 90 * 60_000)).toBeUndefined();
    expect(deadlineText('2026-01-01T00:00:00Z', 0)).toBeUndefined();
  });
});
