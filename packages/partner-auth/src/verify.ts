import { errors as joseErrors, jwtVerify } from 'jose';
import {
  CLOCK_TOLERANCE_SECONDS,
  MAX_LENGTHS,
  MAX_NUMERIC_DATE,
  MAX_TOKEN_BYTES,
  MAX_TOKEN_LIFETIME_SECONDS,
  PARTNER_SUBJECTS,
  type PartnerSubject,
  SSO_ALGORITHM,
  SSO_AUDIENCE,
  TIER_BY_SUBJECT,
  type LmsTier,
} from './constants.js';
import { PartnerTokenError, Reasons } from './errors.js';
import type { PartnerKeyRegistry } from './key-registry.js';
import { decodeJsonObject } from './unverified.js';

/**
 * What a token is used for (docs/architecture.md, "Token purposes"). Both kinds share the header
 * rules, the key lookup, `iss`, `aud`, `iat`, `exp`, `jti` and the lengths. A sign-in (`sso`) token
 * carries `email` and `membershipId` and a member tier in `sub` (the spec). A course-creation
 * (`bearer`) token carries neither `email` nor `membershipId`, and its `sub` names the partner's
 * calling system (any non-empty string). Each kind is refused where the other is expected, so a
 * member who sees their sign-in token cannot create courses with it.
 */
export type TokenPurpose = 'sso' | 'bearer';

export interface VerifyPartnerTokenOptions {
  purpose: TokenPurpose;
  registry: PartnerKeyRegistry;
  /** The current time (injected). */
  now: () => Date;
  /** Seconds of clock skew allowed on `exp` and `iat`. Default CLOCK_TOLERANCE_SECONDS (30). */
  clockToleranceSeconds?: number;
}

/** What every verified partner token has. */
interface VerifiedTokenBase {
  issuer: string;
  kid: string;
  jti: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

/** A sign-in (SSO) token that passed every rule. */
export interface VerifiedSsoToken extends VerifiedTokenBase {
  subject: PartnerSubject;
  /** The LMS pricing tier `sub` maps to (member → anggota). */
  tier: LmsTier;
  email: string;
  membershipId: string;
  name?: string;
}

/** A course-creation (bearer) token that passed every rule. */
export interface VerifiedBearerToken extends VerifiedTokenBase {
  /** `sub`: the partner's name for its calling system, not a member tier. */
  subject: string;
}

/** The name the LMS's sign-in code knows a verified SSO token by. */
export type VerifiedPartnerToken = VerifiedSsoToken;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Splits a compact JWS into its decoded header and payload without verifying anything, after
 * the size check. Throws PartnerTokenError (malformed or too large).
 */
export function decodePartnerToken(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  if (Buffer.byteLength(token, 'utf8') > MAX_TOKEN_BYTES) {
    throw new PartnerTokenError('invalid_token', Reasons.tooLarge(MAX_TOKEN_BYTES));
  }
  const parts = token.split('.');
  // An empty signature is well-formed (an unsecured JWT): the header rules refuse its alg.
  if (parts.length !== 3 || (parts[2] !== '' && !BASE64URL.test(parts[2]))) throw new PartnerTokenError('invalid_token', Reasons.malformed);
  const header = decodeJsonObject(parts[0]);
  const payload = decodeJsonObject(parts[1]);
  if (!header || !payload) throw new PartnerTokenError('invalid_token', Reasons.malformed);
  return { header, payload };
}

function invalid(reason: string): never {
  throw new PartnerTokenError('invalid_token', reason);
}

/** A string claim or header field: of type string and within its maximum length. */
function checkString(where: 'header' | 'claim', name: keyof typeof MAX_LENGTHS, value: unknown): string {
  const label = where === 'header' ? `"${name}" header parameter` : `"${name}" claim`;
  if (typeof value !== 'string') invalid(`${label} must be a string`);
  if (value.length > MAX_LENGTHS[name]) invalid(`${label} is longer than ${MAX_LENGTHS[name]} characters`);
  return value;
}

function checkNumericDate(name: 'iat' | 'exp', value: unknown): number {
  if (value === undefined) invalid(`missing required "${name}" claim`);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_NUMERIC_DATE) {
    invalid(`"${name}" claim must be a whole number of seconds (at most 10 digits)`);
  }
  return value;
}

/** The header rules: alg exactly RS256, typ exactly JWT, kid present, no crit. jku/x5u/jwk are never read. */
function checkHeader(header: Record<string, unknown>): { kid: string } {
  if (header.alg !== SSO_ALGORITHM) invalid(Reasons.algorithm);
  if (header.typ !== 'JWT') invalid(Reasons.type);
  if (header.crit !== undefined) invalid(Reasons.crit);
  if (header.kid === undefined) invalid(Reasons.missingKid);
  const kid = checkString('header', 'kid', header.kid);
  if (kid.length === 0) invalid(Reasons.missingKid);
  return { kid };
}

/**
 * Verifies a partner's token: size, format, header, issuer, key (by `kid`, among that issuer's
 * keys only), RS256 signature, audience, expiry (with the clock tolerance), `iat` not in the
 * future, lifetime <= 5 minutes, then every claim's type, length and value, and the rules of
 * the token's kind (`purpose`). Throws PartnerTokenError with the reason to show; returns the
 * claims the caller needs.
 *
 * Replay (`jti` already used) is the caller's to check, with its own store: it must remember
 * the `jti` until `expiresAt + clockTolerance`.
 */
export async function verifyPartnerToken(token: string, options: VerifyPartnerTokenOptions & { purpose: 'sso' }): Promise<VerifiedSsoToken>;
export async function verifyPartnerToken(
  token: string,
  options: VerifyPartnerTokenOptions & { purpose: 'bearer' },
): Promise<VerifiedBearerToken>;
export async function verifyPartnerToken(
  token: string,
  options: VerifyPartnerTokenOptions,
): Promise<VerifiedSsoToken | VerifiedBearerToken> {
  const tolerance = options.clockToleranceSeconds ?? CLOCK_TOLERANCE_SECONDS;
  // Size first: nothing of an oversized token is decoded or looked up.
  const { header, payload } = decodePartnerToken(token);
  const { kid } = checkHeader(header);

  if (payload.iss === undefined || payload.iss === '') invalid(Reasons.missingIssuer);
  const issuer = checkString('claim', 'iss', payload.iss);
  const key = await options.registry.keyFor(issuer, kid);

  let verified: Record<string, unknown>;
  try {
    const result = await jwtVerify(token, key, {
      algorithms: [SSO_ALGORITHM],
      typ: 'JWT',
      issuer,
      audience: SSO_AUDIENCE,
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      currentDate: options.now(),
      clockTolerance: tolerance,
      // With maxTokenAge jose also refuses an `iat` in the future (beyond the tolerance).
      maxTokenAge: MAX_TOKEN_LIFETIME_SECONDS,
    });
    verified = result.payload as Record<string, unknown>;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) {
      // jose's own messages are the spec's reasons ("signature verification failed",
      // "\"exp\" claim timestamp check failed", "unexpected \"aud\" claim value", ...).
      const reason = err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid ? Reasons.malformed : err.message;
      throw new PartnerTokenError('invalid_token', reason, { cause: err });
    }
    if (err instanceof TypeError) throw new PartnerTokenError('invalid_token', err.message, { cause: err });
    throw err;
  }

  // jose accepts an `aud` array that contains the audience; the spec wants the string itself.
  if (verified.aud !== SSO_AUDIENCE) invalid(Reasons.audience);
  const issuedAt = checkNumericDate('iat', verified.iat);
  const expiresAt = checkNumericDate('exp', verified.exp);
  if (expiresAt - issuedAt > MAX_TOKEN_LIFETIME_SECONDS) invalid(Reasons.lifetime);
  if (expiresAt <= issuedAt) invalid('"exp" claim must be after "iat"');

  const subject = checkString('claim', 'sub', verified.sub);
  const jti = checkString('claim', 'jti', verified.jti);
  if (jti.length === 0) invalid('"jti" claim must not be empty');
  const base: VerifiedTokenBase = { issuer, kid, jti, issuedAt, expiresAt };

  if (options.purpose === 'bearer') {
    // Present at all, whatever the value: a bearer token carries neither.
    if (verified.email !== undefined || verified.membershipId !== undefined) invalid(Reasons.ssoTokenAsBearer);
    if (subject.trim().length === 0) invalid(Reasons.bearerSubject);
    return { ...base, subject };
  }

  if (!(PARTNER_SUBJECTS as string[]).includes(subject)) invalid(Reasons.subject(PARTNER_SUBJECTS));
  let name: string | undefined;
  if (verified.name !== undefined && verified.name !== null) {
    name = checkString('claim', 'name', verified.name).trim() || undefined;
  }
  const email =
    verified.email === undefined || verified.email === null || verified.email === ''
      ? undefined
      : checkString('claim', 'email', verified.email);
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) invalid('"email" claim is not an e-mail address');
  const membershipId =
    verified.membershipId === undefined || verified.membershipId === null || verified.membershipId === ''
      ? undefined
      : checkString('claim', 'membershipId', verified.membershipId);
  if (email === undefined) throw new PartnerTokenError('sso_failed', Reasons.missingEmail);
  if (membershipId === undefined) throw new PartnerTokenError('sso_failed', Reasons.missingMembershipId);

  const claims: VerifiedSsoToken = {
    ...base,
    subject: subject as PartnerSubject,
    tier: TIER_BY_SUBJECT[subject as PartnerSubject],
    email,
    membershipId,
  };
  if (name) claims.name = name;
  return claims;
}
