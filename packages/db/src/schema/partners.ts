import { relations, sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { institutions } from './people.js';
import { timestamps, tstz } from './timestamps.js';

/** A partner organisation allowed to sign its members in (SSO) and create courses. */
export const partners = pgTable(
  'partners',
  {
    id: serial().primaryKey(),
    /** The JWT `iss` the partner signs with: its domain. */
    issuer: text().notNull(),
    name: text().notNull(),
    /** Where the partner publishes its JWKS; null when it shared PEM keys instead. */
    jwksUrl: text(),
    isActive: boolean().notNull().default(true),
    /** Member check at sign-in (docs/architecture.md, "Member check"): the partner's member-status URL, or null. */
    memberCheckUrl: text(),
    memberCheckTtlSeconds: integer().notNull().default(300),
    memberCheckTimeoutMs: integer().notNull().default(2000),
    /** What sign-in does when the partner cannot answer: 'allow' or 'refuse'. */
    memberCheckOnFailure: text().notNull().default('refuse'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('partners_issuer_key').on(t.issuer),
    check('partners_member_check_on_failure', sql`${t.memberCheckOnFailure} in ('allow', 'refuse')`),
  ],
);

/** PEM public keys a partner shared directly (Option 2 of the spec), one row per `kid`. */
export const partnerKeys = pgTable(
  'partner_keys',
  {
    id: serial().primaryKey(),
    partnerId: integer()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    kid: text().notNull(),
    publicKeyPem: text().notNull(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [uniqueIndex('partner_keys_partner_kid_key').on(t.partnerId, t.kid)],
);

/**
 * The institutions a partner serves (docs/architecture.md, "Partners and institutions"): a partner
 * creates courses only for these, bound by an operator
 * (`lms-admin partner add|bind --institution`).
 */
export const partnerInstitutions = pgTable(
  'partner_institutions',
  {
    partnerId: integer()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    institutionId: integer()
      .notNull()
      .references(() => institutions.id, { onDelete: 'cascade' }),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'partner_institutions_pkey', columns: [t.partnerId, t.institutionId] }),
    index('partner_institutions_institution_idx').on(t.institutionId),
  ],
);

/** Token ids already used, kept until the token's expiry (+ skew) so a token works once. */
export const usedTokenIds = pgTable(
  'used_token_ids',
  {
    issuer: text().notNull(),
    jti: text().notNull(),
    expiresAt: tstz().notNull(),
  },
  (t) => [primaryKey({ name: 'used_token_ids_pkey', columns: [t.issuer, t.jti] }), index('used_token_ids_expires_idx').on(t.expiresAt)],
);

/** Idempotency-Key records of partner course creation: the first response, replayed for 24 h. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    issuer: text().notNull(),
    key: text().notNull(),
    /** SHA-256 of the canonical request body; the same key with another body is refused. */
    requestHash: text().notNull(),
    /** Null while the first request is still being processed. */
    statusCode: integer(),
    responseBody: jsonb(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [t.issuer, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_status_range', sql`${t.statusCode} is null or ${t.statusCode} between 100 and 599`),
  ],
);

export const partnersRelations = relations(partners, ({ many }) => ({
  keys: many(partnerKeys),
  institutions: many(partnerInstitutions),
}));

export const partnerInstitutionsRelations = relations(partnerInstitutions, ({ one }) => ({
  partner: one(partners, { fields: [partnerInstitutions.partnerId], references: [partners.id] }),
  institution: one(institutions, { fields: [partnerInstitutions.institutionId], references: [institutions.id] }),
}));

export const partnerKeysRelations = relations(partnerKeys, ({ one }) => ({
  partner: one(partners, { fields: [partnerKeys.partnerId], references: [partners.id] }),
}));
