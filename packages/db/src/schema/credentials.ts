import { relations, sql } from 'drizzle-orm';
import { check, index, integer, jsonb, numeric, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { courses } from './catalog.js';
import { courseAccreditations } from './evidence.js';
import { certificates } from './learning.js';
import { partners } from './partners.js';
import { users } from './people.js';
import { tstz } from './timestamps.js';

/**
 * The public halves of every key the LMS has signed credentials with (Open Badges VC-JWT). The
 * private key lives in configuration (or a file), never here (except a development key: privateJwk); its public half is recorded the
 * first time an instance starts with it, and stays published at the JWKS URL after a rotation so
 * that credentials signed before it still verify.
 */
export const credentialIssuerKeys = pgTable('credential_issuer_keys', {
  kid: text().primaryKey(),
  publicJwk: jsonb().notNull(),
  /**
   * Development keys only: the private half of a key the LMS generated itself because no key was
   * configured (never in production, where the LMS refuses to start without one), kept here so
   * that every instance of a development or demo deployment signs with the same key. Null for a
   * configured key, whose private half stays in configuration.
   */
  privateJwk: jsonb(),
  /** First seen (the first start with this key). */
  createdAt: tstz().notNull().defaultNow(),
});

/**
 * A member's credit record: the KUM/SKP points one certificate earned, in the course's scheme,
 * written in the certificate's transaction. A revoked certificate voids its credit (voided_at);
 * totals count only records in force.
 */
export const credits = pgTable(
  'credits',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    certificateId: integer()
      .notNull()
      .references(() => certificates.id, { onDelete: 'cascade' }),
    scheme: text().notNull(),
    /** The accreditation this credit was earned under (reference, validity, value). */
    accreditationId: integer().references(() => courseAccreditations.id, { onDelete: 'set null' }),
    amount: numeric({ precision: 8, scale: 2, mode: 'number' }).notNull(),
    earnedAt: tstz().notNull(),
    voidedAt: tstz(),
  },
  (t) => [
    uniqueIndex('credits_certificate_scheme_key').on(t.certificateId, t.scheme),
    index('credits_user_idx').on(t.userId, t.earnedAt),
    check('credits_amount_positive', sql`${t.amount} > 0`),
  ],
);

/**
 * A partner's credit target for its members (for example 30 SKP per calendar year, 120 per three
 * years): `years` = 1 with period 'calendar_year', or a rolling window of `years` years ending today.
 */
export const creditTargets = pgTable(
  'credit_targets',
  {
    id: serial().primaryKey(),
    partnerId: integer()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    scheme: text().notNull(),
    /** 'calendar_year' (the current year) or 'rolling' (the last `years` years up to today). */
    period: text().notNull(),
    years: integer().notNull().default(1),
    amount: numeric({ precision: 8, scale: 2, mode: 'number' }).notNull(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('credit_targets_key').on(t.partnerId, t.scheme, t.period, t.years),
    check('credit_targets_period', sql`${t.period} in ('calendar_year', 'rolling')`),
    check('credit_targets_years', sql`${t.years} between 1 and 10 and (${t.period} = 'rolling' or ${t.years} = 1)`),
    check('credit_targets_amount_positive', sql`${t.amount} > 0`),
  ],
);

export const creditsRelations = relations(credits, ({ one }) => ({
  user: one(users, { fields: [credits.userId], references: [users.id] }),
  course: one(courses, { fields: [credits.courseId], references: [courses.id] }),
  certificate: one(certificates, { fields: [credits.certificateId], references: [certificates.id] }),
}));
