import type { Clock } from '../runtime/clock.js';
import { LruMap } from '../runtime/lru-map.js';

/**
 * Remembers the ID tokens already exchanged (issuer and jti) until they expire, so that none is
 * accepted twice while valid. Bounded: beyond `maxEntries` the least recently seen is forgotten,
 * which the per-subject rate limit keeps far away (docs/adr/0050-ci-identities-by-token-exchange.md).
 */
export class ReplayGuard {
  private readonly seen: LruMap<number>;

  constructor(
    maxEntries: number,
    private readonly clock: Clock,
  ) {
    this.seen = new LruMap(maxEntries);
  }

  /** True the first time this issuer's jti is presented while it is valid; remembers it. */
  firstUse(issuer: string, jti: string, expiresAtMs: number): boolean {
    const key = `${issuer} ${jti}`;
    const until = this.seen.get(key);
    if (until !== undefined && until > this.clock.now()) return false;
    this.seen.set(key, expiresAtMs);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
