import { relations, sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { userRole, userTier } from './enums.js';
import { timestamps, tstz } from './timestamps.js';

export const institutions = pgTable('institutions', {
  id: serial().primaryKey(),
  name: text().notNull(),
  ...timestamps,
});

export const users = pgTable(
  'users',
  {
    id: text()
      .primaryKey()
      .default(sql`gen_random_uuid()::text`),
    /** Stored lower-cased; unique. */
    email: text().notNull(),
    name: text().notNull(),
    role: userRole().notNull().default('student'),
    institutionId: integer().references(() => institutions.id, { onDelete: 'set null' }),
    tier: userTier(),
    membershipId: text(),
    /** `iss` of the partner the user first came from through SSO; null for local users. */
    issuer: text(),
    isActive: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    // SSO matches a returning member by (issuer, membershipId) first.
    uniqueIndex('users_issuer_membership_key')
      .on(t.issuer, t.membershipId)
      .where(sql`${t.issuer} is not null and ${t.membershipId} is not null`),
    index('users_institution_idx').on(t.institutionId),
  ],
);

/** Server-side sessions; only the SHA-256 of the cookie's token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: tstz().notNull().defaultNow(),
    lastSeenAt: tstz().notNull().defaultNow(),
    expiresAt: tstz().notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

/** Teacher API keys ("Kunci API"); only the SHA-256 of the key is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial().primaryKey(),
    keyHash: text().notNull(),
    /** The first characters of the key, shown in lists so a person can tell keys apart. */
    prefix: text().notNull(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    createdAt: tstz().notNull().defaultNow(),
    lastUsedAt: tstz(),
    revokedAt: tstz(),
  },
  (t) => [uniqueIndex('api_keys_hash_key').on(t.keyHash), index('api_keys_user_idx').on(t.userId)],
);

export const institutionsRelations = relations(institutions, ({ many }) => ({
  users: many(users),
}));

export const usersRelations = relations(users, ({ one, many }) => ({
  institution: one(institutions, { fields: [users.institutionId], references: [institutions.id] }),
  sessions: many(sessions),
  apiKeys: many(apiKeys),
}));

export const sessionsRelations = relations(sessions, ({ one }) => ({
  user: one(users, { fields: [sessions.userId], references: [users.id] }),
}));

export const apiKeysRelations = relations(apiKeys, ({ one }) => ({
  user: one(users, { fields: [apiKeys.userId], references: [users.id] }),
}));
