import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { ExchangeRefusal } from './exchange-refusal.js';
import type { IssuerKeys } from './issuer-keys.js';

/**
 * Asymmetric signatures only: never `none`, never HS* (a verifier that takes an HS256 header at
 * its word checks an HMAC keyed with the public key, which anyone can compute).
 */
export const ALLOWED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
] as const;
/** How far the CI's clock and ours may disagree on exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 30;

/** What the token must have been issued for: both from the policy, never from the token. */
export interface VerifyTarget {
  issuer: string;
  audience: string;
}

/** A verified token's claims; exp, iat, jti and sub are there. */
export type VerifiedClaims = JWTPayload & { exp: number; iat: number; jti: string; sub: string };

/** The token's header algorithm, refused unless allowed, before any key is looked at. */
function checkAlgorithm(token: string): void {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw new ExchangeRefusal('InvalidToken', 'The ID token is not a signed JWT');
  }
  if (!(ALLOWED_ALGORITHMS as readonly unknown[]).includes(alg))
    throw new ExchangeRefusal(
      'AlgorithmNotAllowed',
      `The ID token's algorithm ${JSON.stringify(String(alg))} is not accepted; accepted are ${ALLOWED_ALGORITHMS.join(', ')}`,
    );
}

const CLAIM_REASONS: Record<string, ExchangeRefusal['reason']> = {
  aud: 'AudienceMismatch',
  iss: 'UnknownIssuer',
  nbf: 'TokenNotYetValid',
  iat: 'TokenNotYetValid',
};

/** A jose failure as the refusal a client reads (jose's messages name claims, never values). */
function refusalOf(error: unknown, target: VerifyTarget): ExchangeRefusal {
  if (error instanceof ExchangeRefusal) return error;
  const { code, claim } = error as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new ExchangeRefusal('TokenExpired', 'The ID token has expired');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new ExchangeRefusal(
        'SignatureInvalid',
        `The ID token's signature is not ${target.issuer}'s`,
      );
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new ExchangeRefusal(
        'UnknownKey',
        `The ID token is signed with a key ${target.issuer} does not publish`,
      );
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new ExchangeRefusal('AlgorithmNotAllowed', "The ID token's algorithm is not accepted");
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const reason = CLAIM_REASONS[claim ?? ''] ?? 'InvalidToken';
      const message =
        reason === 'AudienceMismatch'
          ? `The ID token's audience is not ${JSON.stringify(target.audience)}`
          : `The ID token's ${claim ?? 'claims'} claim is missing or invalid`;
      return new ExchangeRefusal(reason, message);
    }
    default:
      return new ExchangeRefusal('InvalidToken', 'The ID token is not a valid signed JWT');
  }
}

async function verifyWith(
  token: string,
  getKey: JWTVerifyGetKey,
  target: VerifyTarget,
  now: number,
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, getKey, {
    issuer: target.issuer,
    audience: target.audience,
    algorithms: [...ALLOWED_ALGORITHMS],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date(now),
    requiredClaims: ['exp', 'iat', 'jti', 'sub'],
  });
  return payload;
}

/**
 * Verifies an ID token for a policy's issuer and audience at `now`: an allowed algorithm, a
 * signature by one of the issuer's published keys (fetched again once for a key ID they lack),
 * iss and aud exactly, exp, nbf and iat within the skew. Throws an ExchangeRefusal.
 */
export async function verifyIdToken(
  token: string,
  target: VerifyTarget,
  keys: IssuerKeys,
  now: number,
): Promise<VerifiedClaims> {
  checkAlgorithm(token);
  let payload: JWTPayload;
  try {
    payload = await verifyWith(token, await keys.keys(target.issuer), target, now);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY')
      throw refusalOf(error, target);
    const fresh = await keys.refresh(target.issuer);
    if (!fresh) throw refusalOf(error, target);
    payload = await verifyWith(token, fresh, target, now).catch((again: unknown) => {
      throw refusalOf(again, target);
    });
  }
  if (payload.iat! > now / 1000 + CLOCK_SKEW_SECONDS)
    throw new ExchangeRefusal('TokenNotYetValid', 'The ID token was issued in the future');
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256)
    throw new ExchangeRefusal('InvalidToken', "The ID token's jti claim is missing or invalid");
  return payload as VerifiedClaims;
}
