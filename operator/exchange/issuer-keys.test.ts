import { describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair } from 'jose';
import type { GetAnswer, HttpGetter } from '../controllers/versionstream/http-get.js';
import type { Clock } from '../runtime/clock.js';
import { ExchangeRefusal } from './exchange-refusal.js';
import { IssuerKeys } from './issuer-keys.js';

const ISSUER = 'https://issuer.example';

function clockAt(start: number): Clock & { now: () => number; at: number } {
  const clock = {
    at: start,
    now: () => clock.at,
    setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
    clearTimeout: (timer: NodeJS.Timeout) => clearTimeout(timer),
  };
  return clock;
}

/** An issuer that answers, or fails, as the test says; counts what it was asked. */
function issuerSite(): HttpGetter & { up: boolean; asked: string[]; jwks: object } {
  const site = {
    up: true,
    asked: [] as string[],
    jwks: { keys: [] as object[] },
    get(url: string): Promise<GetAnswer> {
      site.asked.push(url);
      if (!site.up)
        return Promise.resolve({ kind: 'failed', message: `${url}: connection refused` });
      const body = url.endsWith('/openid-configuration')
        ? { issuer: ISSUER, jwks_uri: `${ISSUER}/keys` }
        : site.jwks;
      return Promise.resolve({ kind: 'ok', text: JSON.stringify(body) });
    },
  };
  return site;
}

async function jwk(): Promise<object> {
  const { publicKey } = await generateKeyPair('ES256');
  return { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
}

describe('IssuerKeys', () => {
  it('reads discovery, then the jwks_uri it names, once while the keys are fresh', async () => {
    const site = issuerSite();
    site.jwks = { keys: [await jwk()] };
    const keys = new IssuerKeys(site, clockAt(0));
    await keys.keys(ISSUER);
    await keys.keys(ISSUER);
    expect(site.asked).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/keys`]);
  });

  it('does not ask an issuer that failed again for every request, and keeps stale keys while it is down', async () => {
    const site = issuerSite();
    site.jwks = { keys: [await jwk()] };
    const clock = clockAt(0);
    const keys = new IssuerKeys(site, clock, { maxAgeMs: 1000, minRefreshIntervalMs: 10_000 });
    await keys.keys(ISSUER);
    site.up = false;
    clock.at = 20_000;
    // Stale keys are used while the issuer cannot be read.
    await expect(keys.keys(ISSUER)).resolves.toBeDefined();
    const asked = site.asked.length;
    await keys.keys(ISSUER);
    await keys.keys(ISSUER);
    expect(site.asked.length).toBe(asked);
  });

  it('refuses an issuer it never read with IssuerUnavailable, asking it at most once an interval', async () => {
    const site = issuerSite();
    site.up = false;
    const keys = new IssuerKeys(site, clockAt(0));
    for (let i = 0; i < 5; i++)
      await expect(keys.keys(ISSUER)).rejects.toMatchObject({ reason: 'IssuerUnavailable' });
    expect(site.asked).toEqual([`${ISSUER}/.well-known/openid-configuration`]);
  });

  it('refuses a discovery document that names another issuer', async () => {
    const site = issuerSite();
    const keys = new IssuerKeys(
      {
        get: (url) =>
          url.endsWith('configuration')
            ? Promise.resolve({
                kind: 'ok',
                text: JSON.stringify({
                  issuer: 'https://evil.example',
                  jwks_uri: 'https://evil.example/keys',
                }),
              })
            : site.get(url, 'application/json'),
      },
      clockAt(0),
    );
    const refusal = await keys.keys(ISSUER).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ExchangeRefusal);
    expect((refusal as ExchangeRefusal).message).toContain('names another issuer');
  });
});
