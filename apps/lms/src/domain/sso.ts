import { type Db, users } from '@lms/db';
import type { VerifiedPartnerToken } from '@lms/partner-auth';
import { and, eq } from 'drizzle-orm';

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
