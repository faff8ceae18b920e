import { type Db, partnerKeys, partners, usedTokenIds, users } from '@lms/db';
import type { PartnerDirectory, VerifiedPartnerToken } from '@lms/partner-auth';
import { and, eq, lt } from 'drizzle-orm';

/** A sign-in that cannot go on although the token is valid; `reason` is DESIGN §5's `sso_failed` reason. */
export class SsoFailure extends Error {
  override name = 'SsoFailure';
  constructor(
    readonly reason: 'member_inactive' | 'account_creation_failed' | 'session_creation_failed',
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** Partners and their PEM keys from the database, for the key registry of @lms/partner-auth. */
export function databasePartnerDirectory(db: Db): PartnerDirectory {
  return {
    async findPartner(issuer) {
      const [partner] = await db
        .select({ id: partners.id, issuer: partners.issuer, isActive: partners.isActive, jwksUrl: partners.jwksUrl })
        .from(partners)
        .where(eq(partners.issuer, issuer))
        .limit(1);
      if (!partner) return null;
      const pemKeys = await db
        .select({ kid: partnerKeys.kid, publicKeyPem: partnerKeys.publicKeyPem })
        .from(partnerKeys)
        .where(eq(partnerKeys.partnerId, partner.id));
      return { issuer: partner.issuer, isActive: partner.isActive, jwksUrl: partner.jwksUrl, pemKeys };
    },
  };
}

/**
 * Records a token id as used. True for the first use only: the insert is one statement with
 * ON CONFLICT DO NOTHING on (issuer, jti), so N concurrent uses of one token see exactly one
 * `true`, whatever the number of LMS instances sharing the database. The row is kept until
 * `keepUntil` (the token's exp plus the clock tolerance); expired rows are purged now and then.
 */
export async function claimTokenId(db: Db, issuer: string, jti: string, keepUntil: Date, now: Date): Promise<boolean> {
  const inserted = await db
    .insert(usedTokenIds)
    .values({ issuer, jti, expiresAt: keepUntil })
    .onConflictDoNothing()
    .returning({ jti: usedTokenIds.jti });
  // Opportunistic purge: about one sign-in in fifty clears rows whose token can no longer be used.
  if (inserted.length > 0 && Math.random() < 0.02) await purgeUsedTokenIds(db, now);
  return inserted.length > 0;
}

export async function purgeUsedTokenIds(db: Db, now: Date): Promise<number> {
  const gone = await db.delete(usedTokenIds).where(lt(usedTokenIds.expiresAt, now)).returning({ jti: usedTokenIds.jti });
  return gone.length;
}

export interface SsoUser {
  id: string;
  isActive: boolean;
}

type SsoClaims = Pick<VerifiedPartnerToken, 'issuer' | 'tier' | 'name'> & { email: string; membershipId: string };

/**
 * The user a verified SSO token stands for (DESIGN §5): matched by (issuer, membershipId),
 * then by e-mail (case-insensitive), created otherwise. `name` is used only when creating (the
 * e-mail's local part when absent); the tier is updated on every sign-in. Throws SsoFailure
 * `member_inactive` for a user an operator deactivated.
 */
export async function findOrCreateSsoUser(db: Db, claims: SsoClaims): Promise<SsoUser> {
  const email = claims.email.toLowerCase();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existing = await findSsoUser(db, claims.issuer, claims.membershipId, email);
    if (existing) {
      if (!existing.isActive) throw new SsoFailure('member_inactive');
      // Matched by e-mail: link the partner identity unless the user already belongs to another
      // partner (their membershipId is that partner's, and is forwarded to its APIs).
      const link = existing.issuer === null || existing.issuer === claims.issuer;
      await db
        .update(users)
        .set({ tier: claims.tier, ...(link ? { issuer: claims.issuer, membershipId: claims.membershipId } : {}) })
        .where(eq(users.id, existing.id));
      return { id: existing.id, isActive: true };
    }
    const [created] = await db
      .insert(users)
      .values({
        email,
        name: claims.name ?? email.slice(0, email.lastIndexOf('@')),
        role: 'student',
        tier: claims.tier,
        membershipId: claims.membershipId,
        issuer: claims.issuer,
      })
      // A concurrent first sign-in of the same person may have created the row: look again.
      .onConflictDoNothing()
      .returning({ id: users.id });
    if (created) return { id: created.id, isActive: true };
  }
  throw new SsoFailure('account_creation_failed');
}

async function findSsoUser(db: Db, issuer: string, membershipId: string, email: string) {
  const columns = { id: users.id, isActive: users.isActive, issuer: users.issuer };
  const [byMembership] = await db
    .select(columns)
    .from(users)
    .where(and(eq(users.issuer, issuer), eq(users.membershipId, membershipId)))
    .limit(1);
  if (byMembership) return byMembership;
  const [byEmail] = await db.select(columns).from(users).where(eq(users.email, email)).limit(1);
  return byEmail ?? null;
}
