/*
 * What a CI client and the operator's token exchange send each other
 * (docs/ci-identities.md#the-exchange): POST /v1/token, JSON both ways.
 */

/** What a client asks: its ID token, and optionally which rule's target and for how long. */
export interface ExchangeRequest {
  token: string;
  namespace?: string;
  serviceAccount?: string;
  expirationSeconds?: number;
}

/** What it gets: a token of the rule's ServiceAccount, and where and until when it works. */
export interface ExchangeAnswer {
  token: string;
  expirationTimestamp: string;
  namespace: string;
  serviceAccount: string;
  policy: string;
  rule: string;
}
