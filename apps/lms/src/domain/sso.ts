import { type Db, identities, sqlStateOf, users } from '@lms/db';
import type { VerifiedPartnerToken } from '@lms/partner-auth';
import { and, eq, sql } from 'drizzle-orm';
import { spendTokenId } from './partner-tokens.js';
import { spendTokenAndOpenSession } from './sessions.js';

/**
 * A sign-in that cannot go on although the token is valid; `reason` is an `sso_failed` reason
 * (docs/architecture.md, "Sign-in errors").
 */
export class SsoFailure extends Error {
  override name = 'SsoFailure';
  constructor(
    readonly reason: 'member_inactive' | 'email_in_use' | 'account_creation_failed' | 'session_creation_failed',
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

export interface SsoUser {
  id: string;
  /** The account's tier before this sign-in (the token's own for an account it created). */
  tier: SsoClaims['tier'] | null;
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
 * costs two statements, a new one three, one more when the tier changes: it is written only
 * once the session is open, so a replayed token stops at the second statement having changed
 * nothing (an older token replayed cannot bring back an older, cheaper tier). A deactivated
 * member is refused before the token is spent.
 *
 * The session opens only while the identity the member was found through still leads to them,
 * checked (and locked, FOR KEY SHARE) by the session statement itself: an operator's
 * `user unlink` between the two statements leaves no session behind (the unlink's delete waits
 * for a sign-in holding the lock, then ends the session it opened; identities.ts).
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
    if (err instanceof SsoFailure && (err.reason === 'member_inactive' || err.reason === 'email_in_use')) {
      return { outcome: 'refused', reason: err.reason };
    }
    throw err instanceof SsoFailure ? err : new SsoFailure('account_creation_failed', { cause: err });
  }
  let opened: Awaited<ReturnType<typeof spendTokenAndOpenSession>>;
  try {
    const spend = spendTokenId(db, claims.issuer, claims.jti, claims.keepTokenUntil);
    const stillLinked = db
      .select({ held: sql`1` })
      .from(identities)
      .where(and(eq(identities.issuer, claims.issuer), eq(identities.membershipId, claims.membershipId), eq(identities.userId, user.id)))
      .for('key share');
    opened = await spendTokenAndOpenSession(db, spend, stillLinked, user.id, now, sessionTtlMs);
  } catch (err) {
    throw new SsoFailure('session_creation_failed', { cause: err });
  }
  if (opened.session === null) {
    // The identity was unlinked (or moved) since the member was found: this token no longer
    // reaches the account, as its next sign-in would say.
    return opened.why === 'already-spent' ? { outcome: 'replayed' } : { outcome: 'refused', reason: 'email_in_use' };
  }
  if (user.tier !== claims.tier) {
    try {
      await db.update(users).set({ tier: claims.tier }).where(eq(users.id, user.id));
    } catch (err) {
      // No cookie is set: the session just opened stays unused until it expires.
      throw new SsoFailure('session_creation_failed', { cause: err });
    }
  }
  return { outcome: 'signed-in', userId: user.id, session: opened.session };
}

/**
 * The user a verified SSO token stands for (docs/architecture.md, "Identity on SSO"). A token from
 * partner X reaches an existing account only through an identity of X, (X, membershipId): the one
 * X's first token created, or one an operator linked. Without one, a new student account is created
 * with its identity, unless the token's e-mail already belongs to an account (another partner's
 * member, a local or staff account): that is refused with `email_in_use` and nothing is changed.
 * `name` is used only when creating (the e-mail's local part when absent). Writes nothing for an
 * existing account (signInMember updates the tier once the token is spent). Throws SsoFailure
 * `member_inactive` for a user an operator deactivated.
 */
export async function findOrCreateSsoUser(db: Db, claims: SsoClaims): Promise<SsoUser> {
  const email = claims.email.toLowerCase();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const found = await findSsoUser(db, claims.issuer, claims.membershipId, email);
    if (found?.byIdentity) {
      if (!found.isActive) throw new SsoFailure('member_inactive');
      return { id: found.id, tier: found.tier };
    }
    // The e-mail is another account's, and this partner has no identity on it.
    if (found) throw new SsoFailure('email_in_use');
    const created = await createMember(db, claims, email);
    if (created) return { id: created, tier: claims.tier };
    // A concurrent first sign-in (same identity or same e-mail) won the race: look again.
  }
  throw new SsoFailure('account_creation_failed');
}

/**
 * The account behind (issuer, membershipId), else the account holding the e-mail: one statement,
 * two index lookups, the identity first. `byIdentity` false means only the e-mail matched.
 */
async function findSsoUser(db: Db, issuer: string, membershipId: string, email: string) {
  const { rows } = await db.execute<{ id: string; isActive: boolean; tier: SsoClaims['tier'] | null; byIdentity: boolean }>(sql`
    select u.id, u.is_active as "isActive", u.tier, true as "byIdentity"
    from ${identities} i join ${users} u on u.id = i.user_id
    where i.issuer = ${issuer} and i.membership_id = ${membershipId}
    union all
    select u.id, u.is_active, u.tier, false from ${users} u where u.email = ${email}
    order by "byIdentity" desc
    limit 1`);
  return rows[0] ?? null;
}

/** The account an identity (issuer, membershipId) signs in to, if one exists yet. */
export async function identityOwner(db: Db, issuer: string, membershipId: string): Promise<{ id: string; name: string } | null> {
  const [row] = await db
    .select({ id: users.id, name: users.name })
    .from(identities)
    .innerJoin(users, eq(users.id, identities.userId))
    .where(and(eq(identities.issuer, issuer), eq(identities.membershipId, membershipId)));
  return row ?? null;
}

/**
 * A new student account with its identity, in one statement (both or neither). Null when a
 * concurrent sign-in took the e-mail or the identity first (the caller looks again).
 */
async function createMember(db: Db, claims: SsoClaims, email: string): Promise<string | null> {
  try {
    const { rows } = await db.execute<{ userId: string }>(sql`
      with created as (
        insert into ${users} (email, name, role, tier, membership_id)
        values (${email}, ${claims.name ?? email.slice(0, email.lastIndexOf('@'))}, 'student', ${claims.tier}, ${claims.membershipId})
        on conflict do nothing
        returning id
      )
      insert into ${identities} (issuer, membership_id, user_id, origin)
      select ${claims.issuer}, ${claims.membershipId}, id, 'sso' from created
      returning user_id as "userId"`);
    return rows[0]?.userId ?? null;
  } catch (err) {
    // The identity was created by a concurrent first sign-in with another e-mail: nothing of this
    // statement was kept.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

/** PostgreSQL's unique_violation. */
const isUniqueViolation = (err: unknown): boolean => sqlStateOf(err) === '23505';
