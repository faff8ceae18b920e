import { type Db, generateSessionToken, sessions, type UserRole, users } from '@lms/db';
import { and, eq, gt, type SQLWrapper, sql } from 'drizzle-orm';
import { preparedOnce } from '../lib/prepared.js';

export interface SessionUser {
  tokenHash: string;
  userId: string;
  role: UserRole;
  lastSeenAt: Date;
  expiresAt: Date;
}

export interface NewSession {
  /** The clear token, for the cookie only (the database keeps its hash). */
  token: string;
  tokenHash: string;
  expiresAt: Date;
}

function newSession(now: Date, ttlMs: number): NewSession {
  const { token, tokenHash } = generateSessionToken();
  return { token, tokenHash, expiresAt: new Date(now.getTime() + ttlMs) };
}

/** Opens a server-side session; returns the clear token for the cookie (stored only hashed). */
export async function createSession(db: Db, userId: string, now: Date, ttlMs: number): Promise<NewSession> {
  const session = newSession(now, ttlMs);
  await db.insert(sessions).values({ tokenHash: session.tokenHash, userId, createdAt: now, lastSeenAt: now, expiresAt: session.expiresAt });
  return session;
}

/** A session opened by spendTokenAndOpenSession, or why none was: the token was spent before, or the gate was closed. */
export type SpendAndOpenOutcome = { session: NewSession } | { session: null; why: 'already-spent' | 'gate-closed' };

/**
 * Opens a session only if `spend` spends something (a Drizzle query builder that returns a row when it does:
 * spendTokenId, for a partner token) and `gate` returns a row (a select that may lock what the
 * session depends on: sso.ts locks the identity it signed in through), all in one statement:
 * one commit, never a session without the spend. The spend happens whether the gate is open or
 * not (a data-modifying CTE always runs).
 */
export async function spendTokenAndOpenSession(
  db: Db,
  spend: SQLWrapper,
  gate: SQLWrapper,
  userId: string,
  now: Date,
  ttlMs: number,
): Promise<SpendAndOpenOutcome> {
  const session = newSession(now, ttlMs);
  const at = now.toISOString();
  // Drizzle renders an embedded query builder in parentheses: `with spent as (insert …)`.
  const { rows } = await db.execute<{ opened: number; spent: number }>(sql`
    with spent as ${spend},
    gate as ${gate},
    opened as (
      insert into ${sessions} (token_hash, user_id, created_at, last_seen_at, expires_at)
      select ${session.tokenHash}, ${userId}, ${at}::timestamptz, ${at}::timestamptz, ${session.expiresAt.toISOString()}::timestamptz
      from spent, gate
      returning token_hash
    )
    select (select count(*) from opened)::int as opened, (select count(*) from spent)::int as spent`);
  const { opened, spent } = rows[0];
  if (opened === 1) return { session };
  return { session: null, why: spent === 1 ? 'gate-closed' : 'already-spent' };
}

/** The session's user, if the session exists, has not expired and the user is active. */
export async function findSession(db: Db, tokenHash: string, now: Date): Promise<SessionUser | null> {
  const [row] = await sessionStatement(db).execute({ tokenHash, now });
  return row ?? null;
}

/** Every request with a session cookie asks this: prepared once (no query building per request). */
const sessionStatement = preparedOnce((db: Db) =>
  db
    .select({
      tokenHash: sessions.tokenHash,
      userId: users.id,
      role: users.role,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(eq(sessions.tokenHash, sql.placeholder('tokenHash')), gt(sessions.expiresAt, sql.placeholder('now')), eq(users.isActive, true)),
    )
    .limit(1)
    .prepare('session_user'),
);

export async function touchSession(db: Db, tokenHash: string, at: Date): Promise<void> {
  await touchStatement(db).execute({ tokenHash, at });
}

const touchStatement = preparedOnce((db: Db) =>
  db
    .update(sessions)
    .set({ lastSeenAt: sql`${sql.placeholder('at')}::timestamptz` })
    .where(eq(sessions.tokenHash, sql.placeholder('tokenHash')))
    .prepare('session_touch'),
);

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}
