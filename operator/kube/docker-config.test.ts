import { describe, expect, it } from '@jest/globals';
import { DOCKER_CONFIG_KEY, dockerConfigProblem, pullSecretProblem } from './docker-config.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const SECRET_WORD = 's3cr3t-T0ken';
const problemOf = (config: unknown): string | undefined =>
  dockerConfigProblem(Buffer.from(typeof config === 'string' ? config : JSON.stringify(config)));
const auth = (value: string): unknown => ({ auths: { 'quay.io': { auth: value } } });

describe('dockerConfigProblem', () => {
  it.each<[string, unknown]>([
    ['auth of user:password', auth(b64(`user:${SECRET_WORD}`))],
    ['auth whose password holds colons', auth(b64('user:a:b'))],
    ['username and password', { auths: { 'quay.io': { username: 'u', password: SECRET_WORD } } }],
    ['a registry with a port and a path', { auths: { 'r.example:5000/ns': { auth: b64('u:p') } } }],
    ['an identity token', { auths: { 'acr.example.io': { identitytoken: SECRET_WORD } } }],
    ['other fields beside auths', { auths: { 'quay.io': { auth: b64('u:p'), email: 'x' } }, x: 1 }],
  ])('takes %s', (_what, config) => {
    expect(problemOf(config)).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ['text that is not JSON', `{"auths": ${SECRET_WORD}`, 'is not valid JSON'],
    ['JSON that is not an object', `["${SECRET_WORD}"]`, 'has no object "auths"'],
    ['no auths', { credHelpers: { 'quay.io': SECRET_WORD } }, 'has no object "auths"'],
    ['auths that is not an object', { auths: [SECRET_WORD] }, 'has no object "auths"'],
    ['auths without an entry', { auths: {} }, 'has no registry in "auths"'],
    [
      'an entry that is not an object',
      { auths: { 'quay.io': SECRET_WORD } },
      'has an entry for registry "quay.io" that is not an object',
    ],
    [
      'auth that is not base64',
      auth(`${SECRET_WORD}!`),
      'has an entry for registry "quay.io" whose "auth" is not base64',
    ],
    [
      'auth without its padding',
      auth(b64(`u:${SECRET_WORD}`).replace(/=+$/, '')),
      'has an entry for registry "quay.io" whose "auth" is not base64',
    ],
    [
      'auth that is no user:password',
      auth(b64(SECRET_WORD)),
      'has an entry for registry "quay.io" whose "auth" does not decode to user:password',
    ],
    [
      'auth that is not a string',
      auth(42 as unknown as string),
      'has an entry for registry "quay.io" whose "auth" is not base64',
    ],
    [
      'a username without a password',
      { auths: { 'quay.io': { username: SECRET_WORD } } },
      'has an entry for registry "quay.io" with neither "auth", nor both "username" and "password", nor "identitytoken"',
    ],
    [
      'an empty entry after a good one',
      { auths: { 'quay.io': { auth: b64('u:p') }, 'registry.redhat.io': {} } },
      'has an entry for registry "registry.redhat.io" with neither "auth", nor both "username" and "password", nor "identitytoken"',
    ],
    [
      'an entry whose key is not a registry',
      { auths: { [`${SECRET_WORD} x`]: {} } },
      'has entry 1 of "auths" (its key is not a registry host) with neither "auth", nor both "username" and "password", nor "identitytoken"',
    ],
  ])('refuses %s, naming the field', (_what, config, message) => {
    const problem = problemOf(config);
    expect(problem).toBe(message);
    expect(problem).not.toContain(SECRET_WORD);
  });

  it('never echoes any fragment of the content', () => {
    // Each malformed value built around the secret word; no message may hold a piece of it.
    const fragments = [SECRET_WORD, ...SECRET_WORD.match(/.{4}/g)!];
    const configs = [
      `${SECRET_WORD}`,
      `{"auths":{"quay.io":{"auth":"${SECRET_WORD}"}}}`,
      `{"auths":{"quay.io":{"auth":"${b64(SECRET_WORD)}"}}}`,
      `{"auths":{"${SECRET_WORD} ":{"password":"${SECRET_WORD}"}}}`,
      `{"auths":{"quay.io":"${SECRET_WORD}"`,
    ];
    for (const config of configs) {
      const problem = problemOf(config)!;
      expect(problem).toBeDefined();
      for (const fragment of fragments) expect(problem).not.toContain(fragment);
    }
  });
});

describe('pullSecretProblem', () => {
  const WHAT = 'pull secret ci/pull-secret';

  it('takes a Secret whose key holds a usable config', () => {
    const data = { [DOCKER_CONFIG_KEY]: b64(JSON.stringify(auth(b64('u:p')))) };
    expect(pullSecretProblem(WHAT, data)).toBeUndefined();
  });

  it('names the missing key', () => {
    expect(pullSecretProblem(WHAT, { config: b64('{}') })).toBe(
      'pull secret ci/pull-secret is missing data key ".dockerconfigjson"',
    );
    expect(pullSecretProblem(WHAT, undefined)).toBe(
      'pull secret ci/pull-secret is missing data key ".dockerconfigjson"',
    );
  });

  it('names the Secret, the key and what is wrong', () => {
    const data = { [DOCKER_CONFIG_KEY]: b64(JSON.stringify(auth(b64(SECRET_WORD)))) };
    expect(pullSecretProblem(WHAT, data)).toBe(
      'pull secret ci/pull-secret: data key ".dockerconfigjson" has an entry for registry "quay.io" whose "auth" does not decode to user:password; correct the Secret',
    );
  });
});
