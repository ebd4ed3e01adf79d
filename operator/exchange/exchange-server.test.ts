import { describe, expect, it } from '@jest/globals';
import { parseExchangeRequest } from './exchange-server.js';

describe('parseExchangeRequest', () => {
  it('takes the token and the optional target and lifetime', () => {
    expect(
      parseExchangeRequest(
        JSON.stringify({
          token: 'a.b.c',
          namespace: 'ci',
          serviceAccount: 'sa',
          expirationSeconds: 900,
        }),
      ),
    ).toEqual({ token: 'a.b.c', namespace: 'ci', serviceAccount: 'sa', expirationSeconds: 900 });
  });

  it.each([
    ['not json', 'The request body must be JSON'],
    ['{}', "The request must have a token: the CI's ID token"],
    ['{"token":"a","namespace":1}', "The request's namespace must be a string"],
    [
      '{"token":"a","expirationSeconds":-5}',
      "The request's expirationSeconds must be a positive integer",
    ],
  ])('refuses %s, naming the field, never quoting it', (body, message) => {
    expect(() => parseExchangeRequest(body)).toThrow(message);
  });
});
