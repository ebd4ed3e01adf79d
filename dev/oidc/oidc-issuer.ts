import { createPublicKey, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createServingPki } from '../control-plane/pki.js';

/** The signing algorithms the stand-in can make keys for. */
export type SigningAlgorithm = 'RS256' | 'ES256';

interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface MintOptions {
  /** Sign with this key of the issuer's (default: the newest). */
  kid?: string;
  /**
   * Sign with a key the issuer never published (a forger's), under this key ID: a new one by
   * default, or a published one (then only the signature tells the forgery apart).
   */
  unpublishedKey?: { kid?: string };
  /** Lifetime in seconds from `iat` (default 300, as GitHub's tokens). */
  lifetimeSeconds?: number;
  /** The token's issue time, seconds since the epoch (default: now). */
  issuedAt?: number;
}

/** An issuer's signing key as another process may mint with it (a file of mode 0600). */
export interface ExportedSigningKey {
  issuerUrl: string;
  kid: string;
  alg: SigningAlgorithm;
  privateJwk: JWK;
}

/**
 * A signed ID token with these claims over the defaults (iss the issuer, a fresh jti, iat now,
 * exp after the lifetime); a claim set to undefined is left out.
 */
export async function signIdToken(
  key: { kid: string; alg: SigningAlgorithm; privateKey: CryptoKey | Uint8Array },
  issuerUrl: string,
  claims: JWTPayload,
  options: Pick<MintOptions, 'lifetimeSeconds' | 'issuedAt'> = {},
): Promise<string> {
  const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
  const payload = {
    iss: issuerUrl,
    jti: randomUUID(),
    iat,
    nbf: iat,
    exp: iat + (options.lifetimeSeconds ?? 300),
    ...claims,
  };
  const defined = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
  return new SignJWT(defined)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .sign(key.privateKey);
}

export interface OidcIssuerOptions {
  /** A path under the host, for issuers such as GitHub Enterprise Server's /_services/token. */
  path?: string;
}

/**
 * A local OIDC issuer: a discovery document and a JWKS over HTTPS (a CA of its own, `caPem`),
 * keys it rotates, and tokens with any claims, algorithm and key. It stands for GitHub's or
 * GitLab's issuer in tests and in the local environment, for the operator's token exchange and
 * for kube-apiserver's JWT authenticators alike (both read discovery and JWKS the same way).
 */
export class OidcIssuer {
  private keys: SigningKey[] = [];
  /** How often the JWKS was fetched: a test sees whether a refresh happened. */
  jwksFetches = 0;

  private constructor(
    private readonly server: https.Server,
    readonly url: string,
    readonly caPem: string,
  ) {}

  static async start(options: OidcIssuerOptions = {}): Promise<OidcIssuer> {
    const pki = createServingPki('oidc-issuer');
    const holder: { issuer?: OidcIssuer } = {};
    const server = https.createServer(
      { cert: pki.server.certificatePem, key: pki.server.keyPem },
      (request, response) => holder.issuer!.answer(request.url ?? '/', response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const url = `https://127.0.0.1:${port}${options.path ?? ''}`;
    holder.issuer = new OidcIssuer(server, url, pki.ca.certificatePem);
    await holder.issuer.rotateKeys();
    return holder.issuer;
  }

  /** The published key IDs, newest first. */
  get kids(): string[] {
    return this.keys.map((key) => key.kid);
  }

  /**
   * Publishes a new signing key first in the JWKS, which new tokens are signed with; keeps the
   * previous `keep` keys too (as issuers do for tokens still in flight) and drops older ones.
   */
  async rotateKeys(options: { alg?: SigningAlgorithm; keep?: number } = {}): Promise<string> {
    const alg = options.alg ?? 'RS256';
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    this.keys = [{ kid, alg, privateKey, publicJwk }, ...this.keys.slice(0, options.keep ?? 1)];
    return kid;
  }

  /** The newest key's public half as PEM (what an HS256 forger would use as its secret). */
  publicKeyPem(): string {
    return createPublicKey({ key: this.keys[0]!.publicJwk, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
  }

  /**
   * A signed ID token with these claims over the defaults (iss this issuer, a fresh jti, iat
   * now, exp after the lifetime); a claim set to undefined is left out.
   */
  async mint(claims: JWTPayload, options: MintOptions = {}): Promise<string> {
    const key = options.unpublishedKey
      ? await strangerKey(options.unpublishedKey.kid ?? randomUUID())
      : (this.keys.find((k) => k.kid === (options.kid ?? this.keys[0]!.kid)) ?? this.keys[0]!);
    return signIdToken(key, this.url, claims, options);
  }

  /** The newest signing key, private half included, for a process that mints in its place. */
  async exportSigningKey(): Promise<ExportedSigningKey> {
    const { kid, alg, privateKey } = this.keys[0]!;
    return { issuerUrl: this.url, kid, alg, privateJwk: await exportJWK(privateKey) };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(url: string, response: ServerResponse): void {
    const base = new URL(this.url).pathname.replace(/\/$/, '');
    const json = (body: unknown): void =>
      void response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(body));
    if (url === `${base}/.well-known/openid-configuration`) {
      json({
        issuer: this.url,
        jwks_uri: `${this.url}/.well-known/jwks`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      });
      return;
    }
    if (url === `${base}/.well-known/jwks`) {
      this.jwksFetches += 1;
      json({ keys: this.keys.map((key) => key.publicJwk) });
      return;
    }
    response.writeHead(404).end('not found\n');
  }
}

async function strangerKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256');
  return { kid, alg: 'RS256', privateKey, publicJwk: {} };
}

/** An unsigned token (`alg: none`) with these claims: what no verifier may accept. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/**
 * An HS256 token whose secret is `secret` (a forger who takes the issuer's public key as the
 * HMAC secret, hoping a verifier uses the key for whatever algorithm the header names).
 */
export async function hmacToken(claims: JWTPayload, secret: string, kid?: string): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...(kid ? { kid } : {}) })
    .sign(new TextEncoder().encode(secret));
}
