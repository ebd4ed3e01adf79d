import type { ListenAddress } from '../runtime/http-endpoints.js';
import type { ExchangeLimits } from './token-exchange.js';

/** The token exchange (docs/ci-identities.md): off unless it is given an address. */
export interface TokenExchangeSettings {
  address: ListenAddress;
  /** A folder with tls.crt and tls.key (the platform's serving certificate); self-signed when unset. */
  certDir?: string;
  /** The self-signed certificate's host name (the exchange Service's). */
  hostname: string;
  /** PEM bundle trusted for issuers besides the system roots (a GitHub Enterprise Server's CA). */
  issuerCaCertificates?: string;
  limits: ExchangeLimits;
}

export interface TokenExchangeFlags {
  tokenExchangeBindAddress?: string;
  tokenExchangeCertPath?: string;
  tokenExchangeIssuerCaFile?: string;
  tokenExchangeBurst?: string;
  tokenExchangePerMinute?: string;
}

export const TOKEN_EXCHANGE_SERVICE = 'guestcluster-operator-token-exchange';
export const TOKEN_EXCHANGE_SETTINGS = {
  address: '--token-exchange-bind-address (TOKEN_EXCHANGE_BIND_ADDRESS)',
  caFile: '--token-exchange-issuer-ca-file (TOKEN_EXCHANGE_ISSUER_CA_FILE)',
  burst: '--token-exchange-burst (TOKEN_EXCHANGE_BURST)',
  perMinute: '--token-exchange-per-minute (TOKEN_EXCHANGE_PER_MINUTE)',
} as const;
/** A CI job exchanges once, and again for a long wait; a few retries fit in the burst. */
const DEFAULT_BURST = '5';
const DEFAULT_PER_MINUTE = '6';

interface Checks {
  address: (setting: string, value: string) => ListenAddress | undefined;
  integer: (setting: string, value: string, min: number, max: number) => number;
  problems: string[];
}

function readPem(
  path: string,
  checks: Checks,
  readFile: (path: string) => string,
): string | undefined {
  try {
    const text = readFile(path);
    if (text.includes('-----BEGIN CERTIFICATE-----')) return text;
    checks.problems.push(`${TOKEN_EXCHANGE_SETTINGS.caFile} holds no PEM certificate (${path})`);
  } catch (error) {
    checks.problems.push(
      `${TOKEN_EXCHANGE_SETTINGS.caFile} cannot be read: ${(error as Error).message}`,
    );
  }
  return undefined;
}

/** The settings, or undefined when the exchange is off (no address, or 0); problems go to `checks`. */
export function tokenExchangeSettings(
  flags: TokenExchangeFlags,
  env: NodeJS.ProcessEnv,
  namespace: string,
  checks: Checks,
  readFile: (path: string) => string,
): TokenExchangeSettings | undefined {
  const given = (flag: string | undefined, variable: string, fallback = ''): string =>
    flag ?? env[variable] ?? fallback;
  const text = given(flags.tokenExchangeBindAddress, 'TOKEN_EXCHANGE_BIND_ADDRESS', '0');
  const address = checks.address(TOKEN_EXCHANGE_SETTINGS.address, text);
  if (!address) return undefined;
  const caFile = given(flags.tokenExchangeIssuerCaFile, 'TOKEN_EXCHANGE_ISSUER_CA_FILE');
  return {
    address,
    certDir: given(flags.tokenExchangeCertPath, 'TOKEN_EXCHANGE_CERT_PATH') || undefined,
    hostname: `${TOKEN_EXCHANGE_SERVICE}.${namespace}.svc`,
    issuerCaCertificates: caFile ? readPem(caFile, checks, readFile) : undefined,
    limits: {
      burst: checks.integer(
        TOKEN_EXCHANGE_SETTINGS.burst,
        given(flags.tokenExchangeBurst, 'TOKEN_EXCHANGE_BURST', DEFAULT_BURST),
        1,
        1000,
      ),
      perMinute: checks.integer(
        TOKEN_EXCHANGE_SETTINGS.perMinute,
        given(flags.tokenExchangePerMinute, 'TOKEN_EXCHANGE_PER_MINUTE', DEFAULT_PER_MINUTE),
        1,
        6000,
      ),
    },
  };
}
