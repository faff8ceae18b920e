import { type CryptoKey, importJWK, type JWK } from 'jose';
import { rsaKeyBits, weakKeyReason } from './key-size.js';
import { MAX_LENGTHS, SSO_ALGORITHM } from './constants.js';
import { type PartnerAuthLogger, silentLogger } from './logger.js';

export interface JwksCacheOptions {
  /** Milliseconds since the epoch; injected so tests control expiry and cooldowns. */
  now?: () => number;
  /** How long fetched keys are used before they are fetched again. Default 1 hour (the spec's maximum). */
  maxAgeMs?: number;
  /** Least time between two fetches of one URL when a `kid` is unknown or the URL failed. Default 30 s. */
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
}

/** What the cache has done, for logs and metrics. */
export interface JwksCacheStats {
  fetches: number;
  failures: number;
  /** Lookups answered with keys older than maxAge because the URL was failing. */
  staleServed: number;
}

/**
 * Partner JWKS, cached per URL. Keys are reused for up to `maxAgeMs`; an unknown `kid` triggers
 * a refetch at most once per `cooldownMs` (so a flood of bad kids cannot hammer the partner);
 * concurrent lookups share one fetch; when the URL fails the last good keys keep being served
 * (logged as a warning) and only a cache that never had keys fails.
 *
 * Only the URL registered by the operator is ever fetched: token headers (`jku`, `x5u`, `jwk`)
 * never reach this class.
 */
export class JwksCache {
  readonly stats: JwksCacheStats = { fetches: 0, failures: 0, staleServed: 0 };
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly logger: PartnerAuthLogger;

  constructor(options: JwksCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? 60 * 60 * 1000;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.fetchFn = options.fetch ?? globalThis.fetch;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * The key with this `kid` at `url`, or null when the JWKS (even freshly fetched, cooldown
   * permitting) has no such key. Throws JwksUnavailableError when the URL fails and no keys
   * were ever fetched from it.
   */
  async getKey(url: string, kid: string): Promise<CryptoKey | null> {
    let entry = this.entries.get(url);
    if (!entry) {
      entry = { keys: new Map(), fetchedAt: null, attemptedAt: null, inflight: null, lastError: null };
      this.entries.set(url, entry);
    }
    const now = this.now();
    const stale = entry.fetchedAt === null || now - entry.fetchedAt >= this.maxAgeMs;
    const mayRetry = entry.attemptedAt === null || now - entry.attemptedAt >= this.cooldownMs;
    if (entry.inflight || (stale && mayRetry)) await this.refresh(url, entry);
    else if (!entry.keys.has(kid) && mayRetry) await this.refresh(url, entry);

    if (entry.fetchedAt === null) {
      throw new JwksUnavailableError(entry.lastError ?? 'no keys fetched yet');
    }
    if (this.now() - entry.fetchedAt >= this.maxAgeMs) this.stats.staleServed += 1;
    return entry.keys.get(kid) ?? null;
  }

  /** Drops what is known about a URL (the operator changed it). */
  forget(url: string): void {
    this.entries.delete(url);
  }

  private refresh(url: string, entry: Entry): Promise<void> {
    if (!entry.inflight) {
      entry.attemptedAt = this.now();
      entry.inflight = this.fetchKeys(url)
        .then((keys) => {
          entry.keys = keys;
          entry.fetchedAt = this.now();
          entry.lastError = null;
          this.logger.info({ jwksUrl: url, kids: [...keys.keys()] }, 'partner JWKS fetched');
        })
        .catch((err: unknown) => {
          this.stats.failures += 1;
          entry.lastError = err instanceof Error ? err.message : String(err);
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
