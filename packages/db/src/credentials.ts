import { createHash, randomBytes } from 'node:crypto';

/** Every API key starts with this, as the spec shows (`lms_key_...`). */
export const API_KEY_PREFIX = 'lms_key_';
/** How many characters of a key are kept in clear to tell keys apart in lists. */
export const API_KEY_VISIBLE_CHARS = API_KEY_PREFIX.length + 6;
const API_KEY_PATTERN = /^lms_key_[A-Za-z0-9_-]{43}$/;

/** SHA-256 hex of a secret token (API key or session token): what the database stores. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new API key: `lms_key_` + 256 random bits in base64url, its hash and its visible prefix. */
export function generateApiKey(): { key: string; keyHash: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, keyHash: hashToken(key), prefix: key.slice(0, API_KEY_VISIBLE_CHARS) };
}

/** Whether a string has the shape of one of our API keys (checked before any lookup). */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** A new session token (256 random bits) and the hash stored server-side. */
export function generateSessionToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashToken(token) };
}
