import { createHmac, createSecretKey, type Hmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import { Reasons } from './errors.js';

/**
 * The gateway's proof that a sign-in came through it (docs/architecture.md, "SSO only through the
 * gateway").
 *
 * The gateway is where a partner's caller-IP allowlist is enforced, so the LMS must sign in only
 * with tokens that passed it. The gateway's 302 carries, next to the token, a short-lived proof
 * bound to that exact token: `<exp>.<base64url HMAC-SHA256>` under GATEWAY_SECRET, the secret the
 * two apps share. The LMS carries it along its 307 and the callback checks it before anything
 * else about the token (no key lookup, no JWKS fetch for a token the gateway never saw).
 *
 * - Bound to the token: a proof is worth nothing with any other token (the MAC covers the exact
 *   token text). The token itself is single-use (`jti`), so the proof needs no replay store.
 * - Short-lived: the browser follows the redirects at once; GATEWAY_PROOF_TTL_SECONDS is plenty.
 * - Domain-separated: the MAC input starts with a label, so nothing else signed with the same
 *   secret can pass for a proof.
 */

/** The query parameter that carries the proof on the gateway's 302 and the LMS's 307. */
export const GATEWAY_PROOF_PARAM = 'proof';
/** How long a proof is valid after the gateway issued it. */
export const GATEWAY_PROOF_TTL_SECONDS = 120;
/** Clock difference allowed between the gateway and the LMS (both ours, NTP-synced). */
export const GATEWAY_PROOF_TOLERANCE_SECONDS = 10;

const LABEL = 'lms-gateway-sso-proof.v1';
const PROOF = /^(\d{1,10})\.([A-Za-z0-9_-]{43})$/;

// The secret as a key object, made once per secret (the gateway signs a proof per sign-in).
let lastKey: { secret: string; key: KeyObject } | null = null;
function keyOf(secret: string): KeyObject {
  if (lastKey?.secret !== secret) lastKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return lastKey.key;
}

function mac(secret: string, token: string, exp: number): Hmac {
  return createHmac('sha256', keyOf(secret)).update(`${LABEL}\n${exp}\n${token}`);
}

/** The proof the gateway puts next to `token`, valid for `ttlSeconds` from `nowSeconds`. */
export function signGatewayProof(secret: string, token: string, nowSeconds: number, ttlSeconds = GATEWAY_PROOF_TTL_SECONDS): string {
  const exp = Math.floor(nowSeconds) + ttlSeconds;
  return `${exp}.${mac(secret, token, exp).digest('base64url')}`;
}

export type GatewayProofProblem = 'missing' | 'malformed' | 'mismatch' | 'expired' | 'too_far_ahead';

export type GatewayProofCheck = { ok: true; expiresAt: number } | { ok: false; problem: GatewayProofProblem; reason: string };

const DETAIL: Record<GatewayProofProblem, string> = {
  missing: 'no gateway proof',
  malformed: 'the gateway proof is malformed',
  mismatch: 'the gateway proof does not match this token',
  expired: 'the gateway proof has expired',
  too_far_ahead: 'the gateway proof expires too far ahead (are the gateway and LMS clocks in sync?)',
};

function refused(problem: GatewayProofProblem): GatewayProofCheck {
  return { ok: false, problem, reason: Reasons.notThroughGateway(DETAIL[problem]) };
}

/**
 * Checks the proof that came with `token` (`proof` is whatever the query held: a repeated
 * parameter is malformed). The MAC is compared in constant time, and before the expiry is looked
 * at, so "expired" is said only of a proof the gateway really issued. `reason` is the text for
 * the sign-in page (`invalid_token`).
 */
export function verifyGatewayProof(
  secret: string,
  token: string,
  proof: unknown,
  nowSeconds: number,
  toleranceSeconds = GATEWAY_PROOF_TOLERANCE_SECONDS,
): GatewayProofCheck {
  if (proof === undefined || proof === null || proof === '') return refused('missing');
  if (typeof proof !== 'string') return refused('malformed');
  const match = PROOF.exec(proof);
  if (!match) return refused('malformed');
  const exp = Number(match[1]);
  const given = Buffer.from(match[2], 'base64url');
  const expected = mac(secret, token, exp).digest();
  // 43 base64url characters can decode to 32 bytes with stray low bits; compare the bytes, then
  // the text's canonical form, so one proof has exactly one spelling.
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || given.toString('base64url') !== match[2]) {
    return refused('mismatch');
  }
  if (nowSeconds > exp + toleranceSeconds) return refused('expired');
  if (exp - nowSeconds > GATEWAY_PROOF_TTL_SECONDS + toleranceSeconds) return refused('too_far_ahead');
  return { ok: true, expiresAt: exp };
}
