import { describe, expect, it } from '@jest/globals';
import { GitHubGate } from './github-gate.js';

const MINUTE = 60_000;

describe('the gate before every request to GitHub', () => {
  it('stays closed for a doubling backoff after failures, and opens on an answer', () => {
    const gate = new GitHubGate({ baseMs: MINUTE, maxMs: 4 * MINUTE });
    gate.record({ kind: 'unavailable', message: '502' }, 0);
    expect(gate.closedAt(MINUTE - 1)).toMatchObject({
      reason: 'GitHubUnavailable',
      retryAtMs: MINUTE,
    });
    expect(gate.closedAt(MINUTE)).toBeUndefined();
    gate.record({ kind: 'rejected', message: '401 Bad credentials' }, MINUTE);
    expect(gate.closedAt(MINUTE)).toMatchObject({
      reason: 'CredentialRejected',
      retryAtMs: 3 * MINUTE,
    });
    for (let i = 0; i < 5; i++) gate.record({ kind: 'unavailable', message: '' }, 0);
    expect(gate.closedAt(0)?.retryAtMs).toBe(4 * MINUTE);
    gate.record({ kind: 'ok', data: {} }, 0);
    expect(gate.closedAt(0)).toBeUndefined();
  });

  it('waits for the rate limit to reset, also when the last request used it up', () => {
    const gate = new GitHubGate({ baseMs: MINUTE, maxMs: 4 * MINUTE });
    gate.record({ kind: 'rate-limited', message: '403', untilMs: 30 * MINUTE }, 0);
    expect(gate.closedAt(30 * MINUTE - 1)).toMatchObject({ reason: 'RateLimited' });
    gate.record({ kind: 'ok', data: {}, rateLimitedUntilMs: 50 * MINUTE }, 31 * MINUTE);
    expect(gate.closedAt(49 * MINUTE)).toMatchObject({ retryAtMs: 50 * MINUTE });
    // A secondary limit without Retry-After: at least the base wait (a minute, as GitHub asks).
    gate.record({ kind: 'rate-limited', message: '403 secondary' }, 60 * MINUTE);
    expect(gate.closedAt(60 * MINUTE)?.retryAtMs).toBe(61 * MINUTE);
  });
});
