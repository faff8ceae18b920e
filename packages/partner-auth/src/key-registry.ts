import { type CryptoKey, importSPKI } from 'jose';
import { SSO_ALGORITHM } from './constants.js';
import { PartnerTokenError, Reasons } from './errors.js';
import { JwksCache, type JwksCacheOptions, JwksUnavailableError } from './jwks-cache.js';
import { rsaKeyBits, weakKeyReason } from './key-size.js';
import { type PartnerAuthLogger, silentLogger } from './logger.js';

/** A partner as the operator registered it (the LMS reads it from `partners` + `partner_keys`). */
export interface PartnerRecord {
  issuer: string;
  isActive: boolean;
  /** Where the partner publishes its JWKS (Option 1 of the spec), or null. */
  jwksUrl: string | null;
  /** PEM public keys shared directly (Option 2), one per `kid`. */
  pemKeys: ReadonlyArray<{ kid: string; publicKeyPem: string }>;
}

/** Where partners come from. The LMS implements it over its database; tests may use a Map. */
export interface PartnerDirectory {
  findPartner(issuer: string): Promise<PartnerRecord | null>;
}

export interface PartnerKeyRegistryOptions {
  directory: PartnerDirectory;
  /** The clock; injected so tests control cache expiry. */
  now?: () => Date;
  /** How long a partner lookup (found or not) is answered from memory. Default 30 s. */
  partnerCacheTtlMs?: number;
  /** The JWKS cache to use, or options for a new one (its clock defaults to `now`). */
  jwks?: JwksCache | JwksCacheOptions;
  logger?: PartnerAuthLogger;
}

interface CachedPartner {
  partner: PartnerRecord | null;
  /** The PEM keys, imported once per cache fill. */
  pemKeys: Map<string, CryptoKey>;
  until: number;
}

const MAX_CACHED_PARTNERS = 1_000;

/**
 * Finds the key that must have signed a token: the key with the token's `kid` among the keys of
 * the token's issuer only (never a union of partners' keys). PEM keys are looked at first, then
 * the partner's JWKS. Partners are cached for a short TTL, so an operator's change (a new PEM
 * key, a deactivation) takes effect within it; `forget()` applies it at once in this process.
 */
export class PartnerKeyRegistry {
  readonly jwks: JwksCache;
  private readonly directory: PartnerDirectory;
  private readonly now: () => Date;
  private readonly ttlMs: number;
  private readonly logger: PartnerAuthLogger;
  private readonly partners = new Map<string, CachedPartner>();

  constructor(options: PartnerKeyRegistryOptions) {
    this.directory = options.directory;
    this.now = options.now ?? (() => new Date());
    this.ttlMs = options.partnerCacheTtlMs ?? 30_000;
    this.logger = options.logger ?? silentLogger;
    this.jwks =
      options.jwks instanceof JwksCache
        ? options.jwks
        : new JwksCache({ now: () => this.now().getTime(), logger: this.logger, ...options.jwks });
  }

  /** The active partner with this issuer, or null (unknown or deactivated). */
  async activePartner(issuer: string): Promise<PartnerRecord | null> {
    const cached = await this.cachedPartner(issuer);
    return cached.partner?.isActive ? cached.partner : null;
  }

  /**
   * The verification key for (issuer, kid). Throws PartnerTokenError with the spec's reason:
   * unknown or inactive issuer, no key material configured, no key with that kid, or a JWKS
   * that could not be fetched while nothing was cached.
   */
  async keyFor(issuer: string, kid: string): Promise<CryptoKey> {
    const cached = await this.cachedPartner(issuer);
    const partner = cached.partner;
    if (!partner?.isActive) throw new PartnerTokenError('invalid_token', Reasons.unsupportedIssuer(issuer));
    if (!partner.jwksUrl && cached.pemKeys.size === 0) {
      throw new PartnerTokenError('invalid_token', Reasons.noKeyConfigured(issuer));
    }
    const pem = cached.pemKeys.get(kid);
    if (pem) return pem;
    if (partner.jwksUrl) {
      try {
        const key = await this.jwks.getKey(partner.jwksUrl, kid);
        if (key) return key;
      } catch (err) {
        if (err instanceof JwksUnavailableError) {
          throw new PartnerTokenError('invalid_token', Reasons.jwksUnavailable(issuer, err.message), { cause: err });
        }
        throw err;
      }
    }
    throw new PartnerTokenError('invalid_token', Reasons.unknownKid(kid, issuer));
  }

  /** Forget cached partners (one, or all) after an operator's change in this process. */
  forget(issuer?: string): void {
    if (issuer === undefined) this.partners.clear();
    else this.partners.delete(issuer);
  }

  private async cachedPartner(issuer: string): Promise<CachedPartner> {
    const now = this.now().getTime();
    const hit = this.partners.get(issuer);
    if (hit && hit.until > now) return hit;
    const partner = await this.directory.findPartner(issuer);
    const pemKeys = new Map<string, CryptoKey>();
    for (const { kid, publicKeyPem } of partner?.pemKeys ?? []) {
      try {
        const key = await importSPKI(publicKeyPem, SSO_ALGORITHM);
        const weak = weakKeyReason(key);
        if (weak) {
          this.logger.warn({ issuer, kid, bits: rsaKeyBits(key) }, `skipping a PEM key: ${weak}`);
          continue;
        }
        pemKeys.set(kid, key);
      } catch (err) {
        this.logger.warn({ issuer, kid, err: err instanceof Error ? err.message : String(err) }, 'skipping a PEM key that does not import');
      }
    }
    if (partner?.jwksUrl && hit?.partner?.jwksUrl && hit.partner.jwksUrl !== partner.jwksUrl) {
      this.jwks.forget(hit.partner.jwksUrl);
    }
    if (this.partners.size >= MAX_CACHED_PARTNERS) this.partners.clear();
    const entry = { partner, pemKeys, until: now + this.ttlMs };
    this.partners.set(issuer, entry);
    return entry;
  }
}
