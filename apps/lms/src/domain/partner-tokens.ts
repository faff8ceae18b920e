import { affectedRows, type Db, partnerKeys, partners, usedTokenIds } from '@lms/db';
import type { PartnerDirectory } from '@lms/partner-auth';
import { eq, lt, sql } from 'drizzle-orm';
import { PURGE_BATCH_ROWS } from './purge.js';

// What the LMS stores about partner tokens, whatever they are used for (SSO sign-in or course
// creation): the partners and their keys, and the token ids already spent.

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
 * The statement that spends a token id: an insert with ON CONFLICT DO NOTHING on (issuer, jti)
 * that returns a row for the first use only, so N concurrent uses of one token see exactly one
 * row, whatever the number of LMS instances sharing the database. The row is kept until
 * `keepUntil` (the token's exp plus the clock tolerance); the housekeeping plugin purges expired
 * rows. Run inside the transaction of a course creation, or inside a bigger statement (the SSO
 * session, sessions.ts), so that the jti is never spent without what it was spent for.
 */
export function spendTokenId(db: Db, issuer: string, jti: string, keepUntil: Date) {
  return db.insert(usedTokenIds).values({ issuer, jti, expiresAt: keepUntil }).onConflictDoNothing().returning({ jti: usedTokenIds.jti });
}

/**
 * Deletes at most `limit` spent token ids whose token can no longer be used (the oldest first
 * is not promised: any `limit` of them). Returns how many. Without RETURNING: a backlog of
 * hundreds of thousands is deleted a batch at a time, and nothing comes back but the count.
 */
export async function purgeUsedTokenIds(db: Db, now: Date, limit = PURGE_BATCH_ROWS): Promise<number> {
  const expired = db
    .select({ issuer: usedTokenIds.issuer, jti: usedTokenIds.jti })
    .from(usedTokenIds)
    .where(lt(usedTokenIds.expiresAt, now))
    .limit(limit);
  return affectedRows(await db.delete(usedTokenIds).where(sql`(${usedTokenIds.issuer}, ${usedTokenIds.jti}) in ${expired}`));
}
