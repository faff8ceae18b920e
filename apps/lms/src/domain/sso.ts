import { type Db, users } from '@lms/db';
import type { VerifiedPartnerToken } from '@lms/partner-auth';
import { and, desc, eq, or, sql } from 'drizzle-orm';
import { purgeNowAndThen, spendTokenId } from './partner-tokens.js';
import { createSessionSpending } from './sessions.js';

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

export interface SsoUser {
  id: string;
  isActive: boolean;
}

type SsoClaims = Pick<VerifiedPartnerToken, 'issuer' | 'tier' | 'name'> & { email: string; membershipId: string };

export type SsoSignIn =
  | { outcome: 'signed-in'; userId: string; session: { token: string; expiresAt: Date } }
  | { outcome: 'replayed' }
  | { outcome: 'refused'; reason: SsoFailure['reason'] };

/**
 * The database side of an SSO sign-in, in as few statements as it takes: the member is found
 * (or created) first, then one statement spends the token's jti and opens the session together
 * (a data-modifying CTE: one commit, and no session unless the jti was new). A returning member
 * costs two statements, a new one three. A replayed token stops at the second statement having
 * changed nothing (finding a member writes only what the token says: the tier, the identity link).
 * A deactivated member is refused before the token is spent.
 */
export async function signInMember(
  db: Db,
  claims: SsoClaims & { jti: string; keepTokenUntil: Date },
  now: Date,
  sessionTtlMs: number,
): Promise<SsoSignIn> {
  let user: SsoUser;
  try {
    user = await findOrCreateSsoUser(db, claims);
  } catch (err) {
    if (err instanceof SsoFailure && err.reason === 'member_inactive') return { outcome: 'refused', reason: err.reason };
    throw err instanceof SsoFailure ? err : new SsoFailure('account_creation_failed', { cause: err });
  }
  let session;
  try {
    const spend = spendTokenId(db, claims.issuer, claims.jti, claims.keepTokenUntil);
    session = await createSessionSpending(db, spend, user.id, now, sessionTtlMs);
  } catch (err) {
    throw new SsoFailure('session_creation_failed', { cause: err });
  }
  if (!session) return { outcome: 'replayed' };
  // A failed purge does not undo the sign-in; the next one tries again.
  await purgeNowAndThen(db, now).catch(() => {});
  return { outcome: 'signed-in', userId: user.id, session };
}

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
      const alreadyLinked = existing.issuer === claims.issuer && existing.membershipId === claims.membershipId;
      // A returning member whose tier and identity are unchanged costs no write.
      if (existing.tier !== claims.tier || (link && !alreadyLinked)) {
        await db
          .update(users)
          .set({ tier: claims.tier, ...(link ? { issuer: claims.issuer, membershipId: claims.membershipId } : {}) })
          .where(eq(users.id, existing.id));
      }
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

/** The member by (issuer, membershipId), else by e-mail: one statement, the identity match first. */
async function findSsoUser(db: Db, issuer: string, membershipId: string, email: string) {
  const byIdentity = and(eq(users.issuer, issuer), eq(users.membershipId, membershipId));
  const [found] = await db
    .select({ id: users.id, isActive: users.isActive, issuer: users.issuer, membershipId: users.membershipId, tier: users.tier })
    .from(users)
    .where(or(byIdentity, eq(users.email, email)))
    .orderBy(desc(sql`coalesce(${byIdentity}, false)`))
    .limit(1);
  return found ?? null;
}
