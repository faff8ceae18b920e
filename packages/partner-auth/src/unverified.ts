/**
 * Reading a partner JWT WITHOUT verifying it: the gateway only needs `iss` to pick the partner
 * and its IP allowlist (the LMS verifies the signature later). Nothing read here may be trusted
 * for anything but routing.
 *
 * Decisions:
 * - A token longer than MAX_TOKEN_LENGTH characters is `invalid token format`, refused before any
 *   decoding (a real RS256 token with the spec's claims is well under 2 KB).
 * - The compact form is exactly three non-empty base64url segments (no padding, no whitespace).
 *   An empty signature segment (an unsecured `alg: none` token) is refused as a bad format too:
 *   no token we accept can have one.
 * - Header and payload must decode to UTF-8 JSON objects (not arrays, not null).
 * - `iss` that is absent, not a string, or the empty string counts as missing: a number or an
 *   object can never name a registered partner, and reporting it as "unknown issuer: [object]"
 *   would only confuse the partner's developers.
 */

/** Longest token accepted (characters; a valid token is ASCII, so also bytes). */
export const MAX_TOKEN_LENGTH = 8 * 1024;

export type UnverifiedTokenErrorCode = 'missing_token' | 'invalid_format' | 'missing_issuer';

/** The gateway's error texts (the spec's gateway table), by code. */
export const UNVERIFIED_TOKEN_ERRORS: Record<UnverifiedTokenErrorCode, string> = {
  missing_token: 'token is required',
  invalid_format: 'invalid token format',
  missing_issuer: 'missing issuer (iss) claim',
};

export type UnverifiedToken = {
  ok: true;
  /** The `iss` claim: a non-empty string. */
  issuer: string;
  /** Frozen at every depth: one partner's tokens share their header, and a decoded header is kept for the next (see headerOf). */
  header: Readonly<Record<string, unknown>>;
  payload: Record<string, unknown>;
};

export type UnverifiedTokenFailure = {
  ok: false;
  code: UnverifiedTokenErrorCode;
  /** One of UNVERIFIED_TOKEN_ERRORS, word for word. */
  error: string;
};

const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function fail(code: UnverifiedTokenErrorCode): UnverifiedTokenFailure {
  return { ok: false, code, error: UNVERIFIED_TOKEN_ERRORS[code] };
}

/** Decodes one base64url segment into a JSON object, or undefined when it is anything else. */
export function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  // A base64url string of length 4n+1 cannot come from any byte sequence.
  if (!BASE64URL_SEGMENT.test(segment) || segment.length % 4 === 1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(Buffer.from(segment, 'base64url')));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return value as Record<string, unknown>;
}

/**
 * Header segments decoded lately, by their text. Every token a partner signs with one key has the
 * same header (`{"alg":"RS256","typ":"JWT","kid":...}`), so the gateway decodes each partner's
 * once instead of on every call: 0.5 µs of the ~30 µs of CPU a `/sso/verify` costs, which moved
 * that route from 0.55 to 0.59 of the gateway's empty route (ad hoc runs on two cores). Headers that
 * decoded to an object are kept, at most HEADERS_KEPT of them, short ones only; when it is full it
 * starts again, so segments an attacker invents cannot keep a partner's out for long. What a token
 * reads as never depends on it: a kept header is what its segment decodes to, frozen at every
 * depth so that no caller can change it for the next token.
 */
const headersKept = new Map<string, Readonly<Record<string, unknown>>>();
const HEADERS_KEPT = 64;
const HEADER_KEPT_MAX_LENGTH = 512;

function headerOf(segment: string): Readonly<Record<string, unknown>> | undefined {
  const kept = headersKept.get(segment);
  if (kept !== undefined) return kept;
  const header = decodeJsonObject(segment);
  if (header === undefined || segment.length > HEADER_KEPT_MAX_LENGTH) return header;
  if (headersKept.size >= HEADERS_KEPT) headersKept.clear();
  const frozen = deepFreeze(header);
  headersKept.set(segment, frozen);
  return frozen;
}

/** Freezes a decoded JSON value at every depth (a header may carry objects and arrays, e.g. `crit`). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * Reads the header, payload and issuer of a compact JWT without verifying anything about its
 * signature. `token` is whatever the caller received (undefined, an empty string and non-strings
 * are "token is required" / "invalid token format").
 */
export function readUnverifiedToken(token: unknown): UnverifiedToken | UnverifiedTokenFailure {
  if (token === undefined || token === null || token === '') return fail('missing_token');
  if (typeof token !== 'string') return fail('invalid_format');
  if (token.length > MAX_TOKEN_LENGTH) return fail('invalid_format');

  const segments = token.split('.');
  if (segments.length !== 3) return fail('invalid_format');
  const [headerSegment, payloadSegment, signatureSegment] = segments as [string, string, string];
  if (!BASE64URL_SEGMENT.test(signatureSegment) || signatureSegment.length % 4 === 1) return fail('invalid_format');

  const header = headerOf(headerSegment);
  const payload = decodeJsonObject(payloadSegment);
  if (!header || !payload) return fail('invalid_format');

  const issuer = payload.iss;
  if (typeof issuer !== 'string' || issuer.length === 0) return fail('missing_issuer');
  return { ok: true, issuer, header, payload };
}
