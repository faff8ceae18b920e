import { randomUUID } from 'node:crypto';
import { type Db, lmsSigningKeys, partners } from '@lms/db';
import { desc, eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { type OutboundPolicy, postBounded } from './partner-events/outbound.js';

// The member check at sign-in (docs/architecture.md, "Member check"): a partner may register a
// member-status URL; at SSO the LMS asks it whether the membershipId is active, with a short-lived
// ES256 token the LMS signs (public key at /.well-known/jwks.json), caches the answer, bounds the
// wait, and applies the partner's policy when it cannot answer.

export type MemberCheckAnswer =
  /** No check configured, or the partner said active (or a cached answer said so). */
  | { outcome: 'active'; cached: boolean }
  | { outcome: 'inactive'; cached: boolean }
  /** The partner could not answer; `allowed` is its policy's decision. */
  | { outcome: 'unanswered'; allowed: boolean; problem: string };

export interface MemberCheckSettings {
  policy: OutboundPolicy;
  /** The LMS's issuer name in the tokens (PUBLIC_URL). */
  issuer: string;
  now: () => Date;
  /** Answers kept at most (oldest dropped first). */
  maxCached?: number;
  /** How long a partner's member-check settings are kept in memory (as the partner key registry keeps partners). */
  settingsTtlMs?: number;
}

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof importJWK>>;
  publicJwk: JWK;
}

let keyCache: { db: Db; key: Promise<SigningKey> } | null = null;

/** The LMS's signing key (created on first use, shared by every instance through the database). */
export function lmsSigningKey(db: Db): Promise<SigningKey> {
  if (keyCache?.db === db) return keyCache.key;
  const key = (async () => {
    let [row] = await db.select().from(lmsSigningKeys).orderBy(desc(lmsSigningKeys.createdAt)).limit(1);
    if (!row) {
      const pair = await generateKeyPair('ES256', { extractable: true });
      const privateJwk = await exportJWK(pair.privateKey);
      const publicJwk = await exportJWK(pair.publicKey);
      const kid = `lms-${Date.now().toString(36)}`;
      await db
        .insert(lmsSigningKeys)
        .values({ kid, privateJwk, publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' } })
        .onConflictDoNothing();
      // Another instance may have created one at the same time: the newest wins for everybody.
      [row] = await db.select().from(lmsSigningKeys).orderBy(desc(lmsSigningKeys.createdAt)).limit(1);
    }
    // biome-ignore lint/style/noNonNullAssertion: inserted just above when missing.
    const r = row!;
    return { kid: r.kid, privateKey: await importJWK(r.privateJwk as JWK, 'ES256'), publicJwk: r.publicJwk as JWK };
  })();
  key.catch(() => {
    if (keyCache?.key === key) keyCache = null;
  });
  keyCache = { db, key };
  return key;
}

/** The public keys of the LMS (a JWKS). */
export async function lmsJwks(db: Db): Promise<{ keys: JWK[] }> {
  const rows = await db.select({ publicJwk: lmsSigningKeys.publicJwk }).from(lmsSigningKeys).orderBy(desc(lmsSigningKeys.createdAt));
  if (rows.length === 0) return { keys: [(await lmsSigningKey(db)).publicJwk] };
  return { keys: rows.map((r) => r.publicJwk as JWK) };
}

/** A member checker with its cache (one per app). */
export function memberChecker(db: Db, settings: MemberCheckSettings) {
  const cache = new Map<string, { active: boolean; until: number }>();
  const maxCached = settings.maxCached ?? 10_000;

  const settingsTtlMs = settings.settingsTtlMs ?? 30_000;
  type PartnerSettings = { url: string | null; ttl: number; timeoutMs: number; onFailure: string } | undefined;
  const partnerSettings = new Map<string, { value: PartnerSettings; until: number }>();
  /** The partner's settings: no statement per sign-in (a sign-in's statements are counted: test/routes/sso/replay.test.ts). */
  async function settingsOf(issuer: string, now: Date): Promise<PartnerSettings> {
    const kept = partnerSettings.get(issuer);
    if (kept && kept.until > now.getTime()) return kept.value;
    const [value] = await db
      .select({
        url: partners.memberCheckUrl,
        ttl: partners.memberCheckTtlSeconds,
        timeoutMs: partners.memberCheckTimeoutMs,
        onFailure: partners.memberCheckOnFailure,
      })
      .from(partners)
      .where(eq(partners.issuer, issuer));
    if (partnerSettings.size >= 1_000) partnerSettings.clear();
    partnerSettings.set(issuer, { value, until: now.getTime() + settingsTtlMs });
    return value;
  }

  return async function check(issuer: string, membershipId: string): Promise<MemberCheckAnswer> {
    const now = settings.now();
    const partner = await settingsOf(issuer, now);
    if (!partner?.url) return { outcome: 'active', cached: false };
    const key = `${issuer}\u0000${membershipId}`;
    const hit = cache.get(key);
    if (hit && hit.until > now.getTime()) return { outcome: hit.active ? 'active' : 'inactive', cached: true };

    const unanswered = (problem: string): MemberCheckAnswer => ({ outcome: 'unanswered', allowed: partner.onFailure === 'allow', problem });
    let answer: { active?: unknown };
    try {
      const signing = await lmsSigningKey(db);
      // A fresh jti: the partner keeps it until exp and answers a token once (a replay, from a
      // log or a proxy, learns nothing and asks nothing more).
      const token = await new SignJWT({ membershipId })
        .setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: 'JWT' })
        .setIssuer(settings.issuer)
        .setAudience(issuer)
        .setSubject(membershipId)
        .setJti(randomUUID())
        .setIssuedAt(Math.floor(now.getTime() / 1000))
        .setExpirationTime(Math.floor(now.getTime() / 1000) + 60)
        .sign(signing.privateKey);
      const res = await postBounded(
        partner.url,
        JSON.stringify({ membershipId, iss: issuer }),
        { authorization: `Bearer ${token}`, accept: 'application/json' },
        { policy: settings.policy, timeoutMs: partner.timeoutMs, maxBytes: 4096 },
      );
      if (res.status !== 200) return unanswered(`the member check answered ${res.status}`);
      answer = JSON.parse(res.body) as { active?: unknown };
    } catch (err) {
      return unanswered(`the member check failed: ${(err as Error).message}`);
    }
    if (typeof answer?.active !== 'boolean') return unanswered('the member check answered without a boolean "active"');
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
    cache.set(key, { active: answer.active, until: now.getTime() + partner.ttl * 1000 });
    return { outcome: answer.active ? 'active' : 'inactive', cached: false };
  };
}
