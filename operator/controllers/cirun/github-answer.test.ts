import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../../../test/support/fake-ports.js';
import type { FailedRequest } from './github-answer.js';
import { classifyFailure } from './github-answer.js';

const clock = new FakeClock(1_000_000);
const headers = (extra: Record<string, string> = {}) => ({
  'x-ratelimit-remaining': '4000',
  'x-ratelimit-reset': '2000',
  ...extra,
});
const classify = (failed: Partial<FailedRequest>) =>
  classifyFailure({ status: 0, aboutRun: true, ...failed }, clock);

describe('whom a failed request to GitHub concerns', () => {
  it.each([
    [301, {}, 'repository', 'RepositoryMoved'],
    [307, {}, 'repository', 'RepositoryMoved'],
    [403, {}, 'repository', 'RepositoryAccessDenied'],
    [451, {}, 'repository', 'RepositoryUnavailable'],
    [404, {}, 'run', 'RunNotFound'],
    [410, {}, 'run', 'RunGone'],
    [422, {}, 'run', 'RequestRejected'],
    [400, {}, 'run', 'RequestRejected'],
    [502, {}, 'run', 'GitHubUnavailable'],
    [401, {}, 'api', 'CredentialRejected'],
    [429, {}, 'api', 'RateLimited'],
    [403, { 'x-ratelimit-remaining': '0' }, 'api', 'RateLimited'],
    [403, { 'retry-after': '60' }, 'api', 'RateLimited'],
  ])('%d %j: about the %s (%s)', (status, extra, kind, reason) => {
    expect(classify({ status, headers: headers(extra) })).toMatchObject({ kind, reason });
  });

  it('takes a 403 that names a secondary rate limit for one, with or without headers', () => {
    expect(
      classify({
        status: 403,
        headers: headers(),
        message: 'You have exceeded a secondary rate limit',
      }),
    ).toMatchObject({ kind: 'api', reason: 'RateLimited' });
  });

  it('tells SAML SSO from other refusals by its header', () => {
    expect(
      classify({ status: 403, headers: headers({ 'x-github-sso': 'required; url=https://x' }) }),
    ).toMatchObject({ kind: 'repository', sso: true });
  });

  it('holds back only the run on its own timeout, everyone on no connection', () => {
    expect(classify({ status: 500, timedOut: true })).toMatchObject({
      kind: 'run',
      reason: 'RequestTimedOut',
      outage: true,
    });
    expect(classify({ status: 500, message: 'connect ECONNREFUSED' })).toMatchObject({
      kind: 'api',
      reason: 'GitHubUnavailable',
    });
  });

  it('takes any failure of an App token request for the credential', () => {
    expect(classify({ status: 404, headers: headers(), aboutRun: false })).toMatchObject({
      kind: 'api',
      reason: 'CredentialRejected',
    });
    expect(classify({ status: 500, timedOut: true, aboutRun: false })).toMatchObject({
      kind: 'api',
      reason: 'GitHubUnavailable',
    });
  });

  it('keeps Retry-After of a 5xx, and x-ratelimit-reset of a used-up limit', () => {
    expect(classify({ status: 503, headers: headers({ 'retry-after': '120' }) })).toMatchObject({
      untilMs: 1_000_000 + 120_000,
    });
    expect(
      classify({ status: 403, headers: headers({ 'x-ratelimit-remaining': '0' }) }),
    ).toMatchObject({ untilMs: 2_000_000 });
  });
});
