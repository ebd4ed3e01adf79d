import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { createLocalJWKSet } from 'jose';
import type { HttpGetter } from '../controllers/versionstream/http-get.js';
import type { Clock } from '../runtime/clock.js';
import { LruMap } from '../runtime/lru-map.js';
import { ExchangeRefusal } from './exchange-refusal.js';

/** How long keys are used before they are fetched again, and how often an unknown kid may refetch. */
export interface IssuerKeyLimits {
  maxAgeMs: number;
  minRefreshIntervalMs: number;
}

export const ISSUER_KEY_LIMITS: IssuerKeyLimits = {
  maxAgeMs: 10 * 60_000,
  minRefreshIntervalMs: 10_000,
};
/** Issuers whose keys are kept at once (one per policy's issuer in practice). */
const MAX_ISSUERS = 64;
const MAX_KEYS = 100;

interface Entry {
  getKey: JWTVerifyGetKey;
  fetchedAt: number;
}

/**
 * The signing keys of the policies' issuers: the discovery document at the issuer URL a policy
 * names (never a URL from a token), then its jwks_uri, read through the operator's proxy
 * settings. Kept for a while; fetched again for a key ID they lack, at most every
 * `minRefreshIntervalMs` per issuer, so a stream of forged key IDs costs one fetch per interval.
 */
export class IssuerKeys {
  private readonly entries = new LruMap<Entry>(MAX_ISSUERS);
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly lastAttempt = new LruMap<number>(MAX_ISSUERS);
  /** The last failure per issuer, answered again until the issuer may be asked again. */
  private readonly failures = new LruMap<ExchangeRefusal>(MAX_ISSUERS);

  constructor(
    private readonly http: HttpGetter,
    private readonly clock: Clock,
    private readonly limits: IssuerKeyLimits = ISSUER_KEY_LIMITS,
  ) {}

  /**
   * The issuer's keys, fetched when absent or too old; while the issuer cannot be read, the last
   * keys it published (if any), and it is asked again only once per refresh interval.
   */
  async keys(issuer: string): Promise<JWTVerifyGetKey> {
    const entry = this.entries.get(issuer);
    const now = this.clock.now();
    if (entry && now - entry.fetchedAt < this.limits.maxAgeMs) return entry.getKey;
    const running = this.inFlight.get(issuer);
    if (running) return (await running).getKey;
    const last = this.lastAttempt.get(issuer);
    if (last !== undefined && now - last < this.limits.minRefreshIntervalMs) {
      if (entry) return entry.getKey;
      throw this.failures.get(issuer) ?? unavailable(`${issuer} was asked moments ago`);
    }
    try {
      return (await this.fetch(issuer)).getKey;
    } catch (error) {
      if (entry) return entry.getKey;
      throw error;
    }
  }

  /**
   * Fetches the keys again for a key ID they lack (a rotation), unless they were fetched within
   * the interval; returns the fresh keys, or undefined when it was too soon.
   */
  async refresh(issuer: string): Promise<JWTVerifyGetKey | undefined> {
    const last = this.lastAttempt.get(issuer);
    if (last !== undefined && this.clock.now() - last < this.limits.minRefreshIntervalMs)
      return undefined;
    return (await this.fetch(issuer)).getKey;
  }

  private fetch(issuer: string): Promise<Entry> {
    const running = this.inFlight.get(issuer);
    if (running) return running;
    this.lastAttempt.set(issuer, this.clock.now());
    const fetching = this.read(issuer)
      .then(
        (entry) => {
          this.failures.delete(issuer);
          return entry;
        },
        (error: unknown) => {
          if (error instanceof ExchangeRefusal) this.failures.set(issuer, error);
          throw error;
        },
      )
      .finally(() => this.inFlight.delete(issuer));
    this.inFlight.set(issuer, fetching);
    return fetching;
  }

  private async read(issuer: string): Promise<Entry> {
    const discovery = await this.json(`${issuer}/.well-known/openid-configuration`);
    const { issuer: named, jwks_uri: jwksUri } = discovery as {
      issuer?: unknown;
      jwks_uri?: unknown;
    };
    if (named !== issuer)
      throw unavailable(`the discovery document of ${issuer} names another issuer`);
    if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://'))
      throw unavailable(`the discovery document of ${issuer} names no https jwks_uri`);
    const jwks = (await this.json(jwksUri)) as Partial<JSONWebKeySet>;
    if (!Array.isArray(jwks.keys) || jwks.keys.length > MAX_KEYS)
      throw unavailable(`the JWKS of ${issuer} is not a key set of at most ${MAX_KEYS} keys`);
    const entry = { getKey: createLocalJWKSet(jwks as JSONWebKeySet), fetchedAt: this.clock.now() };
    this.entries.set(issuer, entry);
    return entry;
  }

  private async json(url: string): Promise<unknown> {
    const answer = await this.http.get(url, 'application/json');
    if (answer.kind !== 'ok') throw unavailable(answer.message);
    try {
      return JSON.parse(answer.text) as unknown;
    } catch {
      throw unavailable(`${url} did not answer JSON`);
    }
  }
}

function unavailable(message: string): ExchangeRefusal {
  return new ExchangeRefusal('IssuerUnavailable', `Could not read the issuer's keys: ${message}`);
}
