import { apiKeys, type Db, generateApiKey, type UserRole, users } from '@lms/db';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { preparedOnce } from '../lib/prepared.js';

export interface ApiKeyOwner {
  apiKeyId: number;
  userId: string;
  role: UserRole;
}

export interface ApiKeySummary {
  id: number;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Creates a key for a user. The clear key is returned once and never stored. */
export async function createApiKey(db: Db, userId: string, name: string): Promise<ApiKeySummary & { key: string }> {
  const { key, keyHash, prefix } = generateApiKey();
  const [row] = await db.insert(apiKeys).values({ keyHash, prefix, userId, name }).returning();
  if (!row) throw new Error('api key insert returned nothing');
  return { ...summary(row), key };
}

/** The owner of an active (not revoked) key of an active user, or null. */
export async function findApiKeyOwner(db: Db, keyHash: string): Promise<ApiKeyOwner | null> {
  const [row] = await ownerStatement(db).execute({ keyHash });
  return row ?? null;
}

// Both run for API-key traffic (a lookup per key not in the auth plugin's memory, a touch per key
// and minute): prepared once, no query building per request.
const ownerStatement = preparedOnce((db: Db) =>
  db
    .select({ apiKeyId: apiKeys.id, userId: users.id, role: users.role })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt), eq(users.isActive, true)))
    .limit(1)
    .prepare('api_key_owner'),
);

const touchStatement = preparedOnce((db: Db) =>
  db
    .update(apiKeys)
    .set({ lastUsedAt: sql`${sql.placeholder('at')}::timestamptz` })
    .where(eq(apiKeys.id, sql.placeholder('apiKeyId')))
    .prepare('api_key_touch'),
);

export async function touchApiKey(db: Db, apiKeyId: number, at: Date): Promise<void> {
  await touchStatement(db).execute({ apiKeyId, at });
}

export async function listApiKeys(db: Db, userId: string): Promise<ApiKeySummary[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.id));
  return rows.map(summary);
}

/**
 * Revokes one of the user's active keys. Null when the user has no such active key (someone
 * else's, unknown or already revoked); otherwise the revoked key with its hash, so the caller can
 * drop it from the auth cache.
 */
export async function revokeApiKey(
  db: Db,
  userId: string,
  apiKeyId: number,
  at: Date,
): Promise<(ApiKeySummary & { keyHash: string }) | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning();
  return row ? { ...summary(row), keyHash: row.keyHash } : null;
}

function summary(row: typeof apiKeys.$inferSelect): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
