import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { bitAt, decodeList } from './status-list.js';

// Verifying an Open Badges 3.0 VC-JWT the way a third party does (README, "Verifiable
// credentials"; OB 3.0 section 8.2.4 "Verify a Credential" and the implementation guide's "Key
// provenance"): nothing from our database, everything over HTTP from the issuer's origin.
//  0. The issuer is the one the caller expects (`issuer`: by default the LMS's own), compared as
//     a string before anything is fetched: a signature only proves that *some* site signed, so a
//     credential of another site (another key, its own JWKS) is invalid here, however it looks.
//  1. The JOSE header: alg RS256 only, a kid, none of jku/x5u/jwk/x5c (never a key the token brings).
//     A kid that is an http(s) URL must be on the issuer's origin (nothing is fetched from it).
//  2. The payload's iss = issuer.id; the JWKS at new URL('/.well-known/jwks.json', iss), fetched
//     with a deadline and a size bound; the key with that exact kid (RSA, >= 2048 bits); a kid
//     naming an RFC 9278 thumbprint must be that key's thumbprint; a key's `iss` member, if any,
//     must be the issuer (the implementation guide's "Key provenance").
//  3. The signature (explicit algorithm list), then the claims against the credential: jti = id,
//     sub = credentialSubject.id, nbf = validFrom (not in the future), exp = validUntil; the id
//     is a URL on the issuer's origin (another site's credential cannot borrow our URLs).
//  4. The types (VerifiableCredential + OpenBadgeCredential/AchievementCredential), the contexts.
//  5. credentialStatus: a BitstringStatusListEntry (revocation) whose list is on the issuer's
//     origin; the list is a VC-JWT checked the same way with the same JWKS; its bit decides.
// The outcome carries text from the credential (name, id): whoever prints it escapes it
// (cli/credential.ts), since a valid signature says nothing about control characters.
// Outcomes: valid, revoked, expired, invalid (the credential is not good: reason), unverifiable
// (could not check: the issuer's site did not answer).

export type VerifyOutcome =
  | { status: 'valid' | 'revoked' | 'expired'; kid: string; issuer: string; id: string; name: string | null; validUntil: string | null }
  | { status: 'invalid'; reason: string }
  | { status: 'unverifiable'; reason: string };

export interface VerifyOptions {
  /**
   * The issuer the credential must come from: its id, as `iss` and `issuer.id` say it (an absolute
   * http(s) URL in canonical form, e.g. `https://lms.example.org/credentials/issuer`).
   */
  issuer: string;
  now?: Date;
  /** Deadline of each HTTP fetch (ms). */
  timeoutMs?: number;
  /** The largest JWKS or status list accepted (bytes). */
  maxBytes?: number;
  fetch?: typeof fetch;
}

const ALGORITHMS = ['RS256'];
const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c', 'crit'];
const OB_TYPES = ['OpenBadgeCredential', 'AchievementCredential'];
const VC_CONTEXT_V2 = 'https://www.w3.org/ns/credentials/v2';
const MAX_JWT_CHARS = 1_000_000;
/** RFC 9278: a JWK Thumbprint URI (SHA-256), which a kid may end with (VC-JOSE-COSE recommends it). */
const THUMBPRINT_URN = 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:';
/** How far ahead of the verifier's clock the issuer's may be (validFrom, nbf). */
export const CLOCK_SKEW_MS = 60_000;

class Invalid extends Error {}
class Unverifiable extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** A date-time the credential gives, as ms, or null when absent; a malformed one is invalid. */
function dateOf(value: unknown, what: string): number | null {
  if (value === undefined) return null;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new Invalid(`${what} is not a date-time`);
  return ms;
}

type FetchSettings = { timeoutMs: number; maxBytes: number; fetch: typeof fetch };

/** A string as an absolute http(s) URL written canonically (what `new URL()` gives back unchanged), or null. */
export function canonicalHttpUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // The URL parser drops tabs and line breaks and rewrites spaces: what it changed was not a URL.
  return url.href === value ? url : null;
}

/** An attacker's string in a reason: in quotes, at most 200 characters (whoever prints it escapes it). */
const quoted = (value: unknown) => {
  const text = String(value);
  return `"${text.length > 200 ? `${text.slice(0, 200)}…` : text}"`;
};

async function fetchBounded(url: URL, accept: string, options: FetchSettings): Promise<string> {
  let response: Response;
  try {
    response = await options.fetch(url, {
      headers: { accept },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    throw new Unverifiable(`${url.href} did not answer: ${(err as Error).message}`);
  }
  if (response.status === 404 || response.status === 410) throw new Invalid(`${url.href} answered ${response.status}`);
  if (!response.ok) throw new Unverifiable(`${url.href} answered ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > options.maxBytes) throw new Invalid(`${url.href} is larger than ${options.maxBytes} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) {
        await reader.cancel();
        throw new Invalid(`${url.href} is larger than ${options.maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof Invalid) throw err;
    throw new Unverifiable(`${url.href} could not be read: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The issuer's keys by kid (RSA signing keys only). */
async function fetchJwks(jwksUrl: URL, options: FetchSettings): Promise<Map<string, JWK>> {
  const text = await fetchBounded(jwksUrl, 'application/jwk-set+json, application/json', options);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Invalid(`${jwksUrl.href} is not JSON`);
  }
  if (!isObject(body) || !Array.isArray(body.keys)) throw new Invalid(`${jwksUrl.href} is not a JWK Set`);
  const keys = new Map<string, JWK>();
  for (const k of body.keys) {
    if (isObject(k) && typeof k.kid === 'string' && k.kty === 'RSA' && (k.use === undefined || k.use === 'sig')) keys.set(k.kid, k as JWK);
  }
  return keys;
}

/**
 * Checks a compact JWS with a key of the issuer's set: its header, the key's provenance, its
 * signature; answers the payload and the kid.
 */
async function verifyJws(
  jwt: string,
  keys: () => Promise<Map<string, JWK>>,
  issuer: URL,
  what: string,
): Promise<{ payload: Json; kid: string }> {
  let header: Json;
  try {
    header = decodeProtectedHeader(jwt) as Json;
  } catch {
    throw new Invalid(`${what}: not a compact JWS`);
  }
  if (!ALGORITHMS.includes(String(header.alg))) throw new Invalid(`${what}: algorithm ${quoted(header.alg)} is not accepted (RS256 only)`);
  const extra = FORBIDDEN_HEADERS.filter((h) => h in header);
  if (extra.length > 0) throw new Invalid(`${what}: header ${extra.join(', ')} is not accepted`);
  if (header.typ !== undefined && header.typ !== 'JWT' && header.typ !== 'vc+jwt') throw new Invalid(`${what}: typ ${quoted(header.typ)}`);
  if (typeof header.kid !== 'string' || header.kid === '') throw new Invalid(`${what}: no kid in the header`);
  const kid = header.kid;
  // A kid URL names where its key is: it must be the issuer's site (its keys come from there only).
  const kidUrl = /^https?:/i.test(kid) ? canonicalHttpUrl(kid) : null;
  if (/^https?:/i.test(kid) && kidUrl?.origin !== issuer.origin) {
    throw new Invalid(`${what}: the key ${quoted(kid)} is not on the issuer's origin ${issuer.origin}`);
  }
  const jwk = (await keys()).get(kid);
  if (!jwk) throw new Invalid(`${what}: kid ${quoted(kid)} is not among the issuer's published keys`);
  const keyIssuer = (jwk as Json).iss;
  if (keyIssuer !== undefined && keyIssuer !== issuer.href)
    throw new Invalid(`${what}: the published key ${quoted(kid)} belongs to another issuer`);
  if (kid.includes(THUMBPRINT_URN)) {
    const named = kid.slice(kid.lastIndexOf(THUMBPRINT_URN) + THUMBPRINT_URN.length);
    const actual = await calculateJwkThumbprint({ kty: 'RSA', n: String(jwk.n ?? ''), e: String(jwk.e ?? '') }, 'sha256').catch(() => null);
    if (named !== actual) throw new Invalid(`${what}: the published key ${quoted(kid)} is not the key its thumbprint names`);
  }
  const modulusBits = Buffer.from(String(jwk.n ?? ''), 'base64url').length * 8;
  if (modulusBits < 2048) throw new Invalid(`${what}: the published key ${quoted(kid)} is under 2048 bits`);
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK({ kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256' }, 'RS256');
  } catch {
    throw new Invalid(`${what}: the published key ${quoted(kid)} is not usable`);
  }
  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(jwt, key, { algorithms: ALGORITHMS }));
  } catch (err) {
    throw new Invalid(`${what}: the signature does not verify (${(err as Error).message})`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    throw new Invalid(`${what}: the payload is not JSON`);
  }
  if (!isObject(payload)) throw new Invalid(`${what}: the payload is not an object`);
  return { payload, kid };
}

/** The JWT claims against the credential (OB 3.0 "Verify a Credential VC-JWT Signature"); the credential's dates. */
function checkClaims(payload: Json, what: string, now: number): { expired: boolean; validUntil: number | null } {
  const issuer = isObject(payload.issuer) ? payload.issuer.id : payload.issuer;
  if (typeof payload.iss !== 'string' || payload.iss !== issuer) throw new Invalid(`${what}: iss is not the issuer's id`);
  if (typeof payload.jti !== 'string' || payload.jti !== payload.id) throw new Invalid(`${what}: jti is not the credential's id`);
  const subject = isObject(payload.credentialSubject) ? payload.credentialSubject.id : undefined;
  if (payload.sub !== undefined || subject !== undefined) {
    if (payload.sub !== subject) throw new Invalid(`${what}: sub is not credentialSubject.id`);
  }
  const validFrom = dateOf(payload.validFrom, `${what}: validFrom`);
  if (validFrom === null) throw new Invalid(`${what}: no validFrom`);
  if (typeof payload.nbf !== 'number' || payload.nbf * 1000 !== validFrom) throw new Invalid(`${what}: nbf is not validFrom`);
  // A status list is made on request (validFrom = the issuer's now): a verifier's clock a little
  // behind the issuer's must not call it invalid.
  if (validFrom > now + CLOCK_SKEW_MS) throw new Invalid(`${what}: not valid before ${new Date(validFrom).toISOString()}`);
  const validUntil = dateOf(payload.validUntil, `${what}: validUntil`);
  if (payload.exp !== undefined || validUntil !== null) {
    if (typeof payload.exp !== 'number' || payload.exp * 1000 !== validUntil) throw new Invalid(`${what}: exp is not validUntil`);
  }
  const contexts = asArray(payload['@context']);
  if (contexts[0] !== VC_CONTEXT_V2) throw new Invalid(`${what}: the first @context is not ${VC_CONTEXT_V2}`);
  return { expired: validUntil !== null && validUntil <= now, validUntil };
}

/** Verifies a downloaded credential (compact JWS) of the expected issuer against what that issuer publishes over HTTP. */
export async function verifyCredential(jwtText: string, options: VerifyOptions): Promise<VerifyOutcome> {
  const issuerUrl = canonicalHttpUrl(options.issuer);
  if (!issuerUrl) throw new TypeError(`the expected issuer is not an http(s) URL in canonical form: ${quoted(options.issuer)}`);
  const settings: FetchSettings = {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 1_000_000,
    fetch: options.fetch ?? globalThis.fetch,
  };
  const now = (options.now ?? new Date()).getTime();
  const jwt = jwtText.trim();
  try {
    if (jwt.length > MAX_JWT_CHARS || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(jwt)) {
      throw new Invalid('not a compact JWS (three base64url parts)');
    }
    // The issuer it claims (unverified yet) must be the expected one: nothing is fetched from any other site.
    let claimed: unknown;
    try {
      claimed = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    } catch {
      throw new Invalid('the payload is not JSON');
    }
    if (!isObject(claimed) || typeof claimed.iss !== 'string') throw new Invalid('no iss claim');
    if (claimed.iss !== issuerUrl.href) {
      throw new Invalid(`issued by ${quoted(claimed.iss)}, not by the expected issuer ${issuerUrl.href}`);
    }
    const jwksUrl = new URL('/.well-known/jwks.json', issuerUrl);
    let jwks: Promise<Map<string, JWK>> | null = null;
    const keys = () => {
      jwks ??= fetchJwks(jwksUrl, settings);
      return jwks;
    };

    const { payload, kid } = await verifyJws(jwt, keys, issuerUrl, 'credential');
    const { expired, validUntil } = checkClaims(payload, 'credential', now);
    // Its id names where it lives: on the issuer's site, not on the site of the one it imitates.
    if (canonicalHttpUrl(payload.id)?.origin !== issuerUrl.origin) {
      throw new Invalid(`the credential id ${quoted(payload.id)} is not a URL on the issuer's origin ${issuerUrl.origin}`);
    }
    const types = asArray(payload.type);
    if (!types.includes('VerifiableCredential') || !types.some((t) => OB_TYPES.includes(String(t)))) {
      throw new Invalid('the credential is not a VerifiableCredential and an OpenBadgeCredential');
    }

    // Revocation: the status list the credential names, on the issuer's own origin, signed by the same keys.
    const entries = asArray(payload.credentialStatus).filter(
      (s): s is Json => isObject(s) && s.type === 'BitstringStatusListEntry' && s.statusPurpose === 'revocation',
    );
    if (entries.length !== 1) throw new Invalid('no revocation status (BitstringStatusListEntry) to check');
    const entry = entries[0] as Json;
    let listUrl: URL;
    try {
      listUrl = new URL(String(entry.statusListCredential));
    } catch {
      throw new Invalid('statusListCredential is not a URL');
    }
    if (listUrl.origin !== issuerUrl.origin) throw new Invalid(`the status list ${quoted(listUrl.href)} is not on the issuer's origin`);
    const index =
      typeof entry.statusListIndex === 'string' && /^(0|[1-9][0-9]{0,9})$/.test(entry.statusListIndex) ? Number(entry.statusListIndex) : -1;
    if (index < 0) throw new Invalid('statusListIndex is not a whole number');

    const listJwt = (await fetchBounded(listUrl, 'application/vc+jwt, text/plain', settings)).trim();
    const list = await verifyJws(listJwt, keys, issuerUrl, 'status list');
    if (list.payload.iss !== payload.iss) throw new Invalid('the status list has another issuer');
    const listState = checkClaims(list.payload, 'status list', now);
    if (listState.expired) throw new Unverifiable('the status list has expired');
    if (list.payload.id !== listUrl.href) throw new Invalid('the status list is not the one the credential names');
    if (!asArray(list.payload.type).includes('BitstringStatusListCredential')) throw new Invalid('not a BitstringStatusListCredential');
    const subject = list.payload.credentialSubject;
    if (!isObject(subject) || subject.type !== 'BitstringStatusList' || subject.statusPurpose !== 'revocation') {
      throw new Invalid('the status list is not a revocation BitstringStatusList');
    }
    const bits = typeof subject.encodedList === 'string' ? decodeList(subject.encodedList) : null;
    if (!bits) throw new Invalid('the status list encodedList cannot be decoded');
    const revoked = bitAt(bits, index);
    if (revoked === null) throw new Invalid('statusListIndex is past the end of the status list');

    const status = revoked ? 'revoked' : expired ? 'expired' : 'valid';
    return {
      status,
      kid,
      issuer: String(payload.iss),
      id: String(payload.id),
      name: typeof payload.name === 'string' ? payload.name : null,
      validUntil: validUntil === null ? null : new Date(validUntil).toISOString(),
    };
  } catch (err) {
    if (err instanceof Invalid) return { status: 'invalid', reason: err.message };
    if (err instanceof Unverifiable) return { status: 'unverifiable', reason: err.message };
    return { status: 'unverifiable', reason: (err as Error).message };
  }
}
