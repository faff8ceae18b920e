import { integer, pgEnum, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * Aggregates kept by database triggers (migration 0003_progress_aggregates) so that the progress
 * metrics read O(courses + categories) rows instead of scanning enrollments or certificates.
 * Never written by application code; lms_recompute_counters() rebuilds them from the raw rows.
 * No foreign keys on purpose: a cascade must not remove a row before the trigger that decrements
 * the matching tally has seen it.
 */

/** What makes a user count in a scope: an enrollment (student) or a certificate (holder). */
export const participantKind = pgEnum('participant_kind', ['student', 'certificate_holder']);

/**
 * One row per (kind, scope, user) with at least one enrollment / certificate in that scope.
 * scope_id is a category id, or 0 for every course (categories.id is a serial, never 0).
 * row_count: how many of the user's enrollments / certificates fall in the scope.
 */
export const participants = pgTable(
  'participants',
  {
    kind: participantKind().notNull(),
    scopeId: integer().notNull(),
    userId: text().notNull(),
    rowCount: integer().notNull(),
  },
  (t) => [primaryKey({ name: 'participants_pkey', columns: [t.kind, t.scopeId, t.userId] })],
);

/**
 * Distinct participants per (kind, scope), split into 16 stripes by a hash of the user id so that
 * concurrent first enrollments in one category rarely wait on the same row. Read as a sum.
 */
export const participantTallies = pgTable(
  'participant_tallies',
  {
    kind: participantKind().notNull(),
    scopeId: integer().notNull(),
    stripe: smallint().notNull(),
    participants: integer().notNull(),
  },
  (t) => [primaryKey({ name: 'participant_tallies_pkey', columns: [t.kind, t.scopeId, t.stripe] })],
);
