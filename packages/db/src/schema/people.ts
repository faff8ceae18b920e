import { relations, sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { identityOrigin, userRole, userTier } from './enums.js';
import { timestamps, tstz } from './timestamps.js';

export const institutions = pgTable('institutions', {
  id: serial().primaryKey(),
  name: text().notNull(),
  /**
   * The bank account its learners transfer to (set by its admins on /dashboard/institution, or with
   * `lms-admin institution set-transfer-account`); all null until set, then the transfer instructions name it.
   */
  transferBank: text(),
  transferAccountNumber: text(),
  transferAccountHolder: text(),
  ...timestamps,
});

export const users = pgTable(
  'users',
  {
    id: text().primaryKey().default(sql`gen_random_uuid()::text`),
    /** Stored lower-cased; unique. */
    email: text().notNull(),
    name: text().notNull(),
    role: userRole().notNull().default('student'),
    institutionId: integer().references(() => institutions.id, { onDelete: 'set null' }),
    tier: userTier(),
    /**
     * The member number shown on the profile and certificates (the spec stores it "on the user"):
     * the membershipId of the token that created the account. Sign-in never matches on it: a
     * partner reaches an account only through one of the account's identities (identities table).
     */
    membershipId: text(),
    isActive: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_key').on(t.email), index('users_institution_idx').on(t.institutionId)],
);

/**
 * A person's SSO identities (docs/architecture.md, "Identity on SSO"): (issuer, membershipId) is
 * who a partner's token names, and the only way a token reaches an account. An account may hold
 * several identities, at most one per partner. `origin` says how the identity came to be: created
 * by the partner's first token for a new account ('sso'), or linked by an operator
 * (`lms-admin user link`), which is the only way a staff account, or any account that existed
 * before, is reached through SSO. No foreign key to partners: a partner removed and registered
 * again finds its members again.
 */
export const identities = pgTable(
  'identities',
  {
    issuer: text().notNull(),
    membershipId: text().notNull(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    origin: identityOrigin().notNull(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'identities_pkey', columns: [t.issuer, t.membershipId] }),
    uniqueIndex('identities_user_issuer_key').on(t.userId, t.issuer),
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
  identities: many(identities),
}));

export const identitiesRelations = relations(identities, ({ one }) => ({
  user: one(users, { fields: [identities.userId], references: [users.id] }),
}));

export const sessionsRelations = relations(sessions, ({ one }) => ({
  user: one(users, { fields: [sessions.userId], references: [users.id] }),
}));

export const apiKeysRelations = relations(apiKeys, ({ one }) => ({
  user: one(users, { fields: [apiKeys.userId], references: [users.id] }),
}));
