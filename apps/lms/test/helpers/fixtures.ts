import { type Db, institutions, users } from '@lms/db';
import { createApiKey } from '../../src/domain/api-keys.js';
import { createSession } from '../../src/domain/sessions.js';
import type { LmsApp } from '../../src/app.js';

type Role = 'student' | 'teacher' | 'admin' | 'super_admin';
let counter = 0;

/** Inserts an institution (id returned). */
export async function makeInstitution(db: Db, name = 'Test Institution'): Promise<number> {
  const [row] = await db.insert(institutions).values({ name }).returning({ id: institutions.id });
  return row!.id;
}

/** Inserts a user with a unique e-mail. */
export async function makeUser(
  db: Db,
  fields: { role?: Role; name?: string; email?: string; institutionId?: number | null; isActive?: boolean } = {},
) {
  counter += 1;
  const role = fields.role ?? 'student';
  const [row] = await db
    .insert(users)
    .values({
      email: fields.email ?? `${role}${counter}.${Date.now()}@example.test`,
      name: fields.name ?? `${role} ${counter}`,
      role,
      institutionId: fields.institutionId ?? null,
      isActive: fields.isActive ?? true,
    })
    .returning();
  return row!;
}

/** A session for the user, as the Cookie header a browser would send. */
export async function sessionCookieFor(app: LmsApp, userId: string, ttlMs = 3_600_000): Promise<string> {
  const { token } = await createSession(app.db, userId, app.clock(), ttlMs);
  return `${app.sessionCookieName}=${token}`;
}

/** A new API key of the user, in clear. */
export async function apiKeyFor(db: Db, userId: string, name = 'test key'): Promise<string> {
  const { key } = await createApiKey(db, userId, name);
  return key;
}
