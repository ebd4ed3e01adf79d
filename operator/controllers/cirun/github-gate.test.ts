import { describe, expect, it } from '@jest/globals';
import { GitHubGate } from './github-gate.js';

const MINUTE = 60_000;

describe('the gate before every request to GitHub', () => {
  it('stays closed for a doubling backoff after failures of the API, and opens on an answer', () => {
    const gate = new GitHubGate({ baseMs: MINUTE, maxMs: 4 * MINUTE });
    gate.failed({ reason: 'GitHubUnavailable', detail: 'no answer from GitHub' }, 0);
    expect(gate.closedAt(MINUTE - 1)).toMatchObject({
      reason: 'GitHubUnavailable',
      retryAtMs: MINUTE,
    });
    expect(gate.closedAt(MINUTE)).toBeUndefined();
    gate.failed({ reason: 'CredentialRejected', detail: '401 Bad credentials' }, MINUTE);
    expect(gate.closedAt(MINUTE)).toMatchObject({
      reason: 'CredentialRejected',
      retryAtMs: 3 * MINUTE,
    });
    for (let i = 0; i < 5; i++) gate.failed({ reason: 'GitHubUnavailable', detail: '' }, 0);
    expect(gate.closedAt(0)?.retryAtMs).toBe(4 * MINUTE);
    gate.answered(0);
    expect(gate.closedAt(0)).toBeUndefined();
  });

  it('waits for the rate limit to reset, also when the last request used it up', () => {
    const gate = new GitHubGate({ baseMs: MINUTE, maxMs: 4 * MINUTE });
    gate.failed({ reason: 'RateLimited', detail: '403', untilMs: 30 * MINUTE }, 0);
    expect(gate.closedAt(30 * MINUTE - 1)).toMatchObject({ reason: 'RateLimited' });
    gate.answered(31 * MINUTE, 50 * MINUTE);
    expect(gate.closedAt(49 * MINUTE)).toMatchObject({ retryAtMs: 50 * MINUTE });
    // A secondary limit without Retry-After: at least the base wait (a minute, as GitHub asks).
    gate.failed({ reason: 'RateLimited', detail: '403 secondary' }, 60 * MINUTE);
    expect(gate.closedAt(60 * MINUTE)?.retryAtMs).toBe(61 * MINUTE);
  });

  it('closes on 5xx and timeouts only when runs of several namespaces see them in a row', () => {
    const gate = new GitHubGate({ baseMs: MINUTE, maxMs: 4 * MINUTE });
    // One tenant's runs that GitHub fails to serve: however many, they close nothing.
    for (const run of ['a#1', 'a#2', 'a#3', 'a#4'])
      gate.runFailed(run, 'tenant-a', '502 Bad Gateway', 0);
    expect(gate.closedAt(0)).toBeUndefined();
    // Another namespace's run fails too: GitHub is failing.
    gate.runFailed('b#1', 'tenant-b', '503 Service Unavailable', 0);
    expect(gate.closedAt(0)).toMatchObject({
      reason: 'GitHubUnavailable',
      message: expect.stringContaining('5 runs of 2 namespaces in a row'),
      retryAtMs: MINUTE,
    });
    // An answer in between starts the count again.
    gate.answered(MINUTE);
    gate.runFailed('a#1', 'tenant-a', '502', MINUTE);
    gate.runFailed('b#1', 'tenant-b', '502', MINUTE);
    expect(gate.closedAt(MINUTE)).toBeUndefined();
  });
});
