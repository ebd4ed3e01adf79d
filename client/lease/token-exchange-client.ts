import { Agent, fetch } from 'undici';
import type { ExchangeAnswer, ExchangeRequest } from '../../contracts/token-exchange.js';

/** Where the operator's token exchange is and how to trust it (docs/ci-identities.md#the-exchange). */
export interface ExchangeEndpoint {
  /** The exchange's URL, e.g. https://guestcluster-token-exchange.apps.example.com/v1/token. */
  url: string;
  /** PEM CA bundle the exchange's certificate is checked against; the system roots when unset. */
  certificateAuthority?: string;
}

/** What the exchange answered: a ServiceAccount token and where and until when it works. */
export type ExchangedToken = ExchangeAnswer;

/** The exchange's refusal, with its reason (InvalidToken, NoRuleMatched, RateLimited, ...). */
export class ExchangeRefusedError extends Error {
  override name = 'ExchangeRefusedError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(`The token exchange refused the ID token (${reason}): ${message}`);
  }

  /** Worth another try with a new ID token later: overload, a standby, a rate limit. */
  get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

const ANSWER_FIELDS = ['token', 'expirationTimestamp', 'namespace', 'serviceAccount'] as const;

/**
 * Exchanges a CI's ID token for a ServiceAccount token at the operator's token exchange. The
 * request and the answer hold credentials: neither is logged here, and the caller masks the
 * answer's token at once.
 */
export async function exchangeIdToken(
  endpoint: ExchangeEndpoint,
  request: Omit<ExchangeRequest, 'token'> & { idToken: string },
  signal?: AbortSignal,
): Promise<ExchangedToken> {
  const ca = endpoint.certificateAuthority;
  const dispatcher = new Agent(ca ? { connect: { ca } } : {});
  try {
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        token: request.idToken,
        namespace: request.namespace,
        serviceAccount: request.serviceAccount,
        expirationSeconds: request.expirationSeconds,
      } satisfies ExchangeRequest),
      dispatcher,
      signal,
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not the exchange's JSON: a proxy's or router's page. Said below by status only.
    }
    if (!response.ok)
      throw new ExchangeRefusedError(
        response.status,
        typeof body.reason === 'string' ? body.reason : `HTTP${response.status}`,
        typeof body.message === 'string'
          ? body.message
          : `HTTP ${response.status} from ${endpoint.url}`,
      );
    if (ANSWER_FIELDS.some((field) => typeof body[field] !== 'string'))
      throw new Error(`${endpoint.url} did not answer a token exchange`);
    return body as unknown as ExchangedToken;
  } finally {
    await dispatcher.close();
  }
}
