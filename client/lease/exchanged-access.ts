import { setTimeout as delay } from 'node:timers/promises';
import type https from 'node:https';
import type { ClusterAccess } from '../kube/api-client.js';
import type { KubeconfigContext } from '../kube/kubeconfig.js';
import type { ExchangeEndpoint, ExchangedToken } from './token-exchange-client.js';
import { ExchangeRefusedError, exchangeIdToken } from './token-exchange-client.js';

/** Exchanged again once this little of its life is left: no request goes out with a dying token. */
const RENEW_BEFORE_MS = 2 * 60_000;
/** Transient refusals (a standby, a rate limit) are tried again this often, at these waits. */
const RETRY_WAITS_MS = [1000, 3000, 9000];
/** An exchange not answered by then fails (and is retried as a transient failure). */
const EXCHANGE_TIMEOUT_MS = 30_000;

export interface TokenSource {
  /** A fresh ID token of the CI for the exchange's audience (each is accepted once). */
  idToken: () => Promise<string>;
  endpoint: ExchangeEndpoint;
  /** The namespace the token is for (picks the policy's rule for it). */
  namespace?: string;
  /** Told of every token the moment it exists, to mask it. */
  secret: (value: string) => void;
  /** Told of each exchange (the ServiceAccount and expiry, never the token). */
  exchanged?: (token: ExchangedToken) => void;
  now?: () => number;
}

/**
 * Cluster access with a token from the operator's token exchange (docs/ci-identities.md), held
 * in memory only: exchanged on first use and again when the token nears its expiry, so a long
 * wait outlives any one token. The server and CA are the context's; it holds no token of its own.
 */
export function exchangedAccess(context: KubeconfigContext, source: TokenSource): ClusterAccess {
  const now = source.now ?? Date.now;
  let current: { token: string; expiresAt: number } | undefined;
  let pending: Promise<{ token: string; expiresAt: number }> | undefined;
  const exchange = async (): Promise<{ token: string; expiresAt: number }> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const idToken = await source.idToken();
        source.secret(idToken);
        const answer = await exchangeIdToken(
          source.endpoint,
          { idToken, namespace: source.namespace },
          AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
        );
        source.secret(answer.token);
        source.exchanged?.(answer);
        return { token: answer.token, expiresAt: Date.parse(answer.expirationTimestamp) };
      } catch (error) {
        const transient = !(error instanceof ExchangeRefusedError) || error.transient;
        const wait = RETRY_WAITS_MS[attempt];
        if (!transient || wait === undefined) throw error;
        await delay(wait);
      }
    }
  };
  const token = async (): Promise<string> => {
    if (current && current.expiresAt - now() > RENEW_BEFORE_MS) return current.token;
    pending ??= exchange().finally(() => (pending = undefined));
    current = await pending;
    return current.token;
  };
  return {
    getCurrentCluster: () => ({ server: context.server }),
    applyToHTTPSOptions: async (options: https.RequestOptions): Promise<void> => {
      if (context.ca) options.ca = context.ca;
      if (context.servername) options.servername = context.servername;
      options.headers = { ...options.headers, Authorization: `Bearer ${await token()}` };
    },
  };
}
