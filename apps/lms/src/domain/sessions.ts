import { type Db, generateSessionToken, sessions, users } from '@lms/db';
import { and, eq, gt } from 'drizzle-orm';

export interface SessionUser {
  tokenHash: string;
  userId: string;
  role: 'student' | 'teacher' | 'admin' | 'super_admin';
  lastSeenAt: Date;
  expiresAt: Date;
}

/** Opens a server-side session; returns the clear token for the cookie (stored only hashed). */
export async function createSession(
  db: Db,
  userId: string,
  now: Date,
  ttlMs: number,
): Promise<{ token: string; tokenHash: string; expiresAt: Date }> {
  const { token, tokenHash } = generateSessionToken();
  const expiresAt = new Date(now.getTime() + ttlMs);
  await db.insert(sessions).values({ tokenHash, userId, createdAt: now, lastSeenAt: now, expiresAt });
  return { token, tokenHash, expiresAt };
}

/** The session's user, if the session exists, has not expired and the user is active. */
export async function findSession(db: Db, tokenHash: string, now: Date): Promise<SessionUser | null> {
  const [row] = await db
    .select({
      tokenHash: sessions.tokenHash,
      userId: users.id,
      role: users.role,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now), eq(users.isActive, true)))
    .limit(1);
  return row ?? null;
}

export async function touchSession(db: Db, tokenHash: string, at: Date): Promise<void> {
  await db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.tokenHash, tokenHash));
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}
