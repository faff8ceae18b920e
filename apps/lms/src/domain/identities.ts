import { type Db, identities, inTransaction, partners, sessions, users } from '@lms/db';
import { and, asc, eq, or } from 'drizzle-orm';

// An operator's side of SSO identities (docs/architecture.md, "Identity on SSO"): linking an
// account to a partner's (issuer, membershipId), which is the only way a partner's token reaches a
// staff account or any account the partner did not create, and removing such a link. The sign-in
// side is sso.ts.

/** The longest membershipId a token may carry (the spec's JWT field sizes). */
export const MEMBERSHIP_ID_MAX = 255;

interface Holder {
  email: string;
  role: string;
}

export type LinkResult =
  | { outcome: 'linked'; partnerActive: boolean }
  /** The same link exists already: nothing changed. */
  | { outcome: 'unchanged'; origin: 'sso' | 'operator' }
  | { outcome: 'no-user' }
  | { outcome: 'no-partner' }
  /** (issuer, membershipId) belongs to another account. */
  | { outcome: 'taken'; holder: Holder }
  /** The account already has an identity of this partner, under another membershipId. */
  | { outcome: 'has-other'; membershipId: string }
  /** A concurrent change removed the row that refused the link: try again. */
  | { outcome: 'raced' };

/**
 * Links the account with `email` to the identity (issuer, membershipId) of a registered partner
 * (origin 'operator'). Both constraints of the identities table decide, so two operators (or an
 * operator and a partner's first sign-in) racing for one identity cannot both win; the refusal
 * is then explained from the row that won.
 */
export async function linkIdentity(db: Db, link: { email: string; issuer: string; membershipId: string }): Promise<LinkResult> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, link.email));
  if (!user) return { outcome: 'no-user' };
  const [partner] = await db.select({ isActive: partners.isActive }).from(partners).where(eq(partners.issuer, link.issuer));
  if (!partner) return { outcome: 'no-partner' };
  const inserted = await db
    .insert(identities)
    .values({ issuer: link.issuer, membershipId: link.membershipId, userId: user.id, origin: 'operator' })
    .onConflictDoNothing()
    .returning({ userId: identities.userId });
  if (inserted.length === 1) return { outcome: 'linked', partnerActive: partner.isActive };

  const clashes = await db
    .select({
      userId: identities.userId,
      membershipId: identities.membershipId,
      origin: identities.origin,
      email: users.email,
      role: users.role,
    })
    .from(identities)
    .innerJoin(users, eq(users.id, identities.userId))
    .where(and(eq(identities.issuer, link.issuer), or(eq(identities.membershipId, link.membershipId), eq(identities.userId, user.id))));
  const same = clashes.find((c) => c.userId === user.id && c.membershipId === link.membershipId);
  if (same) return { outcome: 'unchanged', origin: same.origin };
  const holder = clashes.find((c) => c.membershipId === link.membershipId);
  if (holder) return { outcome: 'taken', holder: { email: holder.email, role: holder.role } };
  const own = clashes.find((c) => c.userId === user.id);
  if (own) return { outcome: 'has-other', membershipId: own.membershipId };
  return { outcome: 'raced' };
}

export type UnlinkResult =
  | { outcome: 'unlinked'; membershipId: string; origin: 'sso' | 'operator'; sessionsEnded: number }
  | { outcome: 'no-user' }
  | { outcome: 'not-linked' };

/**
 * Removes the account's identity of `issuer` and ends all the account's sessions, in one
 * transaction. A session does not record which identity opened it, and one opened through the
 * link being removed must not outlive it (an unlink usually undoes a link that should not have
 * been), so every session goes; the person signs in again through an identity they still hold.
 * The partner need not be registered any more: identities outlive their partner.
 *
 * The identity is deleted before the sessions: a sign-in in flight holds a lock on the identity
 * while it opens its session (sso.ts), so the delete waits for it and the sessions delete that
 * follows sees that session; a sign-in that comes after the delete finds no identity and opens
 * none.
 */
export async function unlinkIdentity(db: Db, unlink: { email: string; issuer: string }): Promise<UnlinkResult> {
  return inTransaction(db, async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, unlink.email));
    if (!user) return { outcome: 'no-user' } as const;
    const [removed] = await tx
      .delete(identities)
      .where(and(eq(identities.userId, user.id), eq(identities.issuer, unlink.issuer)))
      .returning({ membershipId: identities.membershipId, origin: identities.origin });
    if (!removed) return { outcome: 'not-linked' } as const;
    const ended = await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ tokenHash: sessions.tokenHash });
    return { outcome: 'unlinked', membershipId: removed.membershipId, origin: removed.origin, sessionsEnded: ended.length } as const;
  });
}

/** The account's identities, oldest first. */
export async function identitiesOf(db: Db, userId: string) {
  return db
    .select({
      issuer: identities.issuer,
      membershipId: identities.membershipId,
      origin: identities.origin,
      createdAt: identities.createdAt,
    })
    .from(identities)
    .where(eq(identities.userId, userId))
    .orderBy(asc(identities.createdAt), asc(identities.issuer));
}
