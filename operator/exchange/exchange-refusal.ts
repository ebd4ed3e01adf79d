/**
 * Why the token exchange refused a request (docs/ci-identities.md#refusals): the reason is the
 * answer's `reason` and, for refusals by policy, an Event's. Messages never quote the token.
 */
export const REFUSAL_STATUS = {
  InvalidRequest: 400,
  InvalidToken: 401,
  AlgorithmNotAllowed: 401,
  UnknownIssuer: 401,
  UnknownKey: 401,
  SignatureInvalid: 401,
  AudienceMismatch: 401,
  TokenExpired: 401,
  TokenNotYetValid: 401,
  TokenReplayed: 401,
  NoRuleMatched: 403,
  PolicyInvalid: 403,
  ServiceAccountMissing: 403,
  PolicyGone: 403,
  GrantMissing: 403,
  RateLimited: 429,
  IssuerUnavailable: 503,
  Unavailable: 503,
} as const;

export type RefusalReason = keyof typeof REFUSAL_STATUS;

/** A refusal: thrown by the exchange's steps, answered as `{ reason, message }`. */
export class ExchangeRefusal extends Error {
  override name = 'ExchangeRefusal';

  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** Seconds a client should wait before it asks again (RateLimited). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get status(): number {
    return REFUSAL_STATUS[this.reason];
  }
}
