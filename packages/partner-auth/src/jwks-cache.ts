import { type CryptoKey, importJWK, type JWK } from 'jose';
import { rsaKeyBits, weakKeyReason } from './key-size.js';
import { MAX_LENGTHS, SSO_ALGORITHM } from './constants.js';
import { type PartnerAuthLogger, silentLogger } from './logger.js';

export interface JwksCacheOptions {
  /** Milliseconds since the epoch; injected so tests control expiry and cooldowns. */
  now?: () => number;
  /**
   * How old fetched keys may get; they are refreshed in the background from 5/6 of it on. Default
   * 1 hour (the spec's maximum).
   */
  maxAgeMs?: number;
  /**
   * Least time between two fetches of one URL after a failure, and the first wait between
   * refetches for unknown kids (which doubles after each one that does not bring the kid, up to
   * maxAgeMs, and is back to this once the key set changes). Default 30 s.
   */
  cooldownMs?: number;
  /** A fetch that takes longer is abandoned. Default 3 s. */
  timeoutMs?: number;
  /** A JWKS document larger than this is refused. Default 64 KiB. */
  maxBytes?: number;
  fetch?: typeof globalThis.fetch;
  logger?: PartnerAuthLogger;
}

/** The JWKS URL failed and no earlier keys are known (a cold cache). */
export class JwksUnavailableError extends Error {
  override name = 'JwksUnavailableError';
}

interface Entry {
  keys: Map<string, CryptoKey>;
  /** When `keys` were fetched; null when never fetched successfully. */
  fetchedAt: number | null;
  /** When the last fetch (successful or not) started; null before the first. */
  attemptedAt: number | null;
  inflight: Promise<void> | null;
  lastError: string | null;
  /** Least time since the last attempt before an unknown kid may cause a refetch (grows, see getKey). */
  kidMissCooldownMs: number;
}

/** What the cache has done, for logs and metrics. */
export interface JwksCacheStats {
  fetches: number;
  failures: number;
  /** Lookups answered with keys older than maxAge (while their refresh runs, or the URL fails). */
  staleServed: number;
  /** Unknown kids answered "no such key" without a refetch (cooldown not over). */
  kidMissesWithoutRefetch: number;
}

/**
 * Partner JWKS, cached per URL (one URL per partner). Concurrent lookups share one fetch.
 *
 * - A known `kid` is answered from the cached keys at once, never after a fetch. Keys are
 *   refreshed in the background once they are 5/6 of `maxAgeMs` old (a lookup starts it); past
 *   `maxAgeMs` a known key is still used while its refresh runs, and kept if the URL fails (the
 *   last good keys keep being served, logged as a warning). So a partner's slow or hanging JWKS
 *   URL, or someone sending tokens with made-up kids, never delays the sign-ins of its members;
 *   a key the partner withdrew stops working once a refresh has seen it gone.
 * - An unknown `kid` waits for a fetch only when one is under way or allowed: a refetch for
 *   unknown kids needs the URL's current cooldown since the last attempt; the cooldown starts at
 *   `cooldownMs` and doubles (up to `maxAgeMs`) after each refetch that did not bring the kid and
 *   changed nothing, and is back to `cooldownMs` once the key set changes. So random kids, which
 *   anyone who knows a partner's `iss` can put in a token, cost the partner a handful of fetches
 *   an hour, not one per cooldown. The wait is bounded by `timeoutMs`.
 * - Only a cache that never had keys (cold) fails, with JwksUnavailableError.
 *
 * Callers look up a partner before its URL (PartnerKeyRegistry.keyFor): a token whose `iss` is
 * not a registered partner never reaches this cache.
 *
 * Only the URL registered by the operator is ever fetched: token headers (`jku`, `x5u`, `jwk`)
 * never reach this class.
 */
export class JwksCache {
  readonly stats: JwksCacheStats = { fetches: 0, failures: 0, staleServed: 0, kidMissesWithoutRefetch: 0 };
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly refreshAfterMs: number;
  private readonly cooldownMs: number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly logger: PartnerAuthLogger;

  constructor(options: JwksCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? 60 * 60 * 1000;
    this.refreshAfterMs = Math.floor((this.maxAgeMs * 5) / 6);
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.fetchFn = options.fetch ?? globalThis.fetch;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * The key with this `kid` at `url`, or null when the JWKS has no such key (after a refetch when
   * one was allowed, see the class comment). Throws JwksUnavailableError when the URL fails and no
   * keys were ever fetched from it.
   */
  async getKey(url: string, kid: string): Promise<CryptoKey | null> {
    let entry = this.entries.get(url);
    if (!entry) {
      entry = { keys: new Map(), fetchedAt: null, attemptedAt: null, inflight: null, lastError: null, kidMissCooldownMs: this.cooldownMs };
      this.entries.set(url, entry);
    }
    const now = this.now();
    const sinceAttempt = entry.attemptedAt === null ? Infinity : now - entry.attemptedAt;

    if (entry.fetchedAt === null) {
      // Cold: nothing to answer from; wait for the fetch (bounded by the timeout).
      if (entry.inflight || sinceAttempt >= this.cooldownMs) await this.refresh(url, entry);
      if (entry.fetchedAt === null) throw new JwksUnavailableError(entry.lastError ?? 'no keys fetched yet');
      return entry.keys.get(kid) ?? null;
    }

    const age = now - entry.fetchedAt;
    const stale = age >= this.maxAgeMs;
    // Refreshed in the background from 5/6 of the max age on, so that while the partner's URL
    // answers and its members sign in, the keys in use are never older than the max age.
    if (age >= this.refreshAfterMs && !entry.inflight && sinceAttempt >= this.cooldownMs) void this.refresh(url, entry);
    const known = entry.keys.get(kid);
    if (known) {
      if (stale) this.stats.staleServed += 1;
      return known;
    }
    if (entry.inflight) await entry.inflight;
    else if (sinceAttempt >= entry.kidMissCooldownMs) await this.refresh(url, entry, kid);
    else {
      this.stats.kidMissesWithoutRefetch += 1;
      return null;
    }
    return entry.keys.get(kid) ?? null;
  }

  /** The fetch of this URL under way, if any (tests, and whoever wants to wait for it). */
  refreshing(url: string): Promise<void> | null {
    return this.entries.get(url)?.inflight ?? null;
  }

  /** Drops what is known about a URL (the operator changed it). */
  forget(url: string): void {
    this.entries.delete(url);
  }

  /** Starts a fetch of the URL unless one is under way; `wantedKid`: started for an unknown kid. */
  private refresh(url: string, entry: Entry, wantedKid?: string): Promise<void> {
    if (!entry.inflight) {
      entry.attemptedAt = this.now();
      entry.inflight = this.fetchKeys(url)
        .then((keys) => {
          const changed = !sameKids(entry.keys, keys);
          entry.keys = keys;
          entry.fetchedAt = this.now();
          entry.lastError = null;
          if (changed) entry.kidMissCooldownMs = this.cooldownMs;
          else if (wantedKid !== undefined && !keys.has(wantedKid)) this.lengthenKidMissCooldown(entry);
          this.logger.info({ jwksUrl: url, kids: [...keys.keys()] }, 'partner JWKS fetched');
        })
        .catch((err: unknown) => {
          this.stats.failures += 1;
          entry.lastError = err instanceof Error ? err.message : String(err);
          if (wantedKid !== undefined) this.lengthenKidMissCooldown(entry);
          if (entry.fetchedAt !== null) {
            this.logger.warn(
              { jwksUrl: url, err: entry.lastError, keysFetchedAt: new Date(entry.fetchedAt).toISOString() },
              'partner JWKS fetch failed; keeping the last good keys',
            );
          } else {
            this.logger.warn({ jwksUrl: url, err: entry.lastError }, 'partner JWKS fetch failed and no keys are cached');
          }
        })
        .finally(() => {
          entry.inflight = null;
        });
    }
    return entry.inflight;
  }

  /** A refetch for an unknown kid brought nothing new (or failed): wait twice as long before the next. */
  private lengthenKidMissCooldown(entry: Entry): void {
    entry.kidMissCooldownMs = Math.min(entry.kidMissCooldownMs * 2, Math.max(this.maxAgeMs, this.cooldownMs));
  }

  private async fetchKeys(url: string): Promise<Map<string, CryptoKey>> {
    this.stats.fetches += 1;
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { accept: 'application/json' },
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new Error(timedOut ? `no answer within ${this.timeoutMs} ms` : `request failed (${describe(err)})`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}`);
    }
    let text: string;
    try {
      text = await readLimited(response, this.maxBytes);
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new Error(timedOut ? `no answer within ${this.timeoutMs} ms` : describe(err));
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error('the JWKS is not JSON');
    }
    const list = (body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(list)) throw new Error('the JWKS has no "keys" array');
    const keys = new Map<string, CryptoKey>();
    for (const jwk of list as JWK[]) {
      // Only RSA signing keys meant for RS256; anything else in the set is skipped, not trusted.
      if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'RSA') continue;
      if (typeof jwk.kid !== 'string' || jwk.kid.length === 0 || jwk.kid.length > MAX_LENGTHS.kid) continue;
      if (jwk.use !== undefined && jwk.use !== 'sig') continue;
      if (jwk.alg !== undefined && jwk.alg !== SSO_ALGORITHM) continue;
      if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string' || jwk.d !== undefined) continue;
      try {
        const key = await importJWK({ kty: 'RSA', n: jwk.n, e: jwk.e }, SSO_ALGORITHM);
        if (key instanceof Uint8Array) continue;
        const weak = weakKeyReason(key);
        if (weak) {
          this.logger.warn({ jwksUrl: url, kid: jwk.kid, bits: rsaKeyBits(key) }, `skipping a JWKS key: ${weak}`);
          continue;
        }
        keys.set(jwk.kid, key);
      } catch (err) {
        this.logger.warn({ jwksUrl: url, kid: jwk.kid, err: describe(err) }, 'skipping a JWKS key that does not import');
      }
    }
    return keys;
  }
}

function sameKids(a: Map<string, CryptoKey>, b: Map<string, CryptoKey>): boolean {
  if (a.size !== b.size) return false;
  for (const kid of a.keys()) if (!b.has(kid)) return false;
  return true;
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`the JWKS is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const code = (cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? `${err.message}: ${code}` : err.message;
  }
  return String(err);
}
