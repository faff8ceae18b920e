import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { CREDIT_SCHEME } from '@lms/contracts/lists';
import { chapters, courses } from './catalog.js';
import { users } from './people.js';
import { timestamps, tstz } from './timestamps.js';

// Credit evidence (docs/architecture.md, "Credit evidence"; DESIGN 5g): what makes a credit count.
// A scheme says how minutes become units and which evidence it requires; an accreditation, recorded
// by an institution admin or super_admin, gives a course its credit in a scheme for a period; the
// evidence per learner (active time per chapter, the evaluation, the pre- and post-test attempts)
// is measured by the server and its trail kept in evidence_log.

/** How a scheme turns minutes into units: floor, to the nearest unit, or down to a half unit. */
export const CREDIT_ROUNDINGS = ['down', 'nearest', 'half'] as const;
export type CreditRounding = (typeof CREDIT_ROUNDINGS)[number];

/**
 * A credit scheme as data (KUM, SKP of the Ministry of Health, IAI SKP, PKPA, an institution's own):
 * the shipped set is written by migration 0020 (docs/authoring.md, "Credit schemes"); an operator
 * adds or changes schemes (`lms-admin scheme set`, the super_admin page). A scheme that requires
 * nothing behaves as courses did before evidence existed.
 */
export const creditSchemes = pgTable(
  'credit_schemes',
  {
    code: text().primaryKey(),
    /** The accrediting body, e.g. "Kementerian Kesehatan RI". */
    body: text().notNull(),
    /** The unit's name as the body writes it: KUM, SKP, JPL... */
    unit: text().notNull(),
    /** Minutes that make one unit (a JPL is 45, an IAI SKP 50 effective minutes), or null: units are not counted from minutes. */
    minutesPerUnit: integer(),
    rounding: text().$type<CreditRounding>().notNull().default('down'),
    /** The most one course may be accredited for in this scheme. */
    maxPerCourse: numeric({ precision: 8, scale: 2, mode: 'number' }).notNull(),
    /** Evidence required by default (a course may only add to it). */
    requiresPreTest: boolean().notNull().default(false),
    /** The post-test's minimum score (0-100), or null: no post-test required. */
    postTestMinScore: integer(),
    requiresEvaluation: boolean().notNull().default(false),
    /** Percent of each chapter's expected minutes a learner must spend on it before completing it, or null. */
    minMinutesShare: integer(),
    /** Percent of a live part's minutes a learner must attend, or null (live sessions: issue 46). */
    minAttendanceShare: integer(),
    /** The evaluation form's items, or null: the standard items (material, speaker, organisation, relevance). */
    evaluationItems: jsonb().$type<EvaluationItem[]>(),
    /** Shipped with the service (documented); an operator's change is kept, never overwritten by an upgrade. */
    builtIn: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [
    check('credit_schemes_code_shape', sql`${t.code} ~ ${sql.raw(`'${CREDIT_SCHEME.source}'`)}`),
    check('credit_schemes_rounding', sql`${t.rounding} in ('down', 'nearest', 'half')`),
    check('credit_schemes_minutes_per_unit', sql`${t.minutesPerUnit} between 1 and 600`),
    check('credit_schemes_max_per_course', sql`${t.maxPerCourse} > 0 and ${t.maxPerCourse} <= 1000`),
    check('credit_schemes_post_test_min', sql`${t.postTestMinScore} between 0 and 100`),
    check('credit_schemes_minutes_share', sql`${t.minMinutesShare} between 1 and 100`),
    check('credit_schemes_attendance_share', sql`${t.minAttendanceShare} between 1 and 100`),
  ],
);

/** One item of an evaluation form: a Likert 1-5 statement in both languages. */
export interface EvaluationItem {
  key: string;
  id: string;
  en: string;
}

/**
 * A course's accreditation by a body: the reference (decree or accreditation number), the period
 * it holds, the value in the scheme and the professions it applies to. Only an institution admin or
 * super_admin records one; the value is bounded by the scheme. A certificate issued outside
 * [validFrom, validUntil] earns no credit for it.
 */
export const courseAccreditations = pgTable(
  'course_accreditations',
  {
    id: serial().primaryKey(),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    scheme: text()
      .notNull()
      .references(() => creditSchemes.code, { onDelete: 'restrict', onUpdate: 'cascade' }),
    reference: text().notNull(),
    validFrom: tstz().notNull(),
    /** Null: open-ended. */
    validUntil: tstz(),
    value: numeric({ precision: 8, scale: 2, mode: 'number' }).notNull(),
    professions: text().array().notNull().default(sql`'{}'::text[]`),
    /** Who recorded it (an admin), or null: recorded by migration 0020 from the course's value before accreditations existed. */
    recordedBy: text().references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    index('course_accreditations_course_idx').on(t.courseId),
    uniqueIndex('course_accreditations_reference_key').on(t.courseId, t.scheme, t.reference),
    check('course_accreditations_value_positive', sql`${t.value} > 0`),
    check('course_accreditations_period', sql`${t.validUntil} is null or ${t.validUntil} > ${t.validFrom}`),
    check('course_accreditations_reference_length', sql`length(${t.reference}) between 1 and 200`),
  ],
);

/**
 * A learner's active time on a chapter, measured by the server from the page's heartbeats (each
 * credits at most the interval since the previous one, capped): never a total the client sends.
 */
export const chapterTime = pgTable(
  'chapter_time',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    chapterId: integer()
      .notNull()
      .references(() => chapters.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    activeSeconds: integer().notNull().default(0),
    beats: integer().notNull().default(0),
    firstBeatAt: tstz().notNull().defaultNow(),
    lastBeatAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.chapterId] }),
    index('chapter_time_course_idx').on(t.courseId, t.userId),
    check('chapter_time_nonnegative', sql`${t.activeSeconds} >= 0`),
  ],
);

/**
 * One evaluation form's answers, kept apart from who wrote them: no user, only the day it came in
 * and a random id (a serial would give away the order of evaluation_completions).
 */
export const evaluationResponses = pgTable(
  'evaluation_responses',
  {
    id: uuid().primaryKey().defaultRandom(),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    /** Item key → 1..5. */
    answers: jsonb().$type<Record<string, number>>().notNull(),
    comment: text().notNull().default(''),
    submittedOn: date({ mode: 'string' }).notNull(),
  },
  (t) => [index('evaluation_responses_course_idx').on(t.courseId)],
);

/** That a learner filled in a course's evaluation (tied to the learner; the answers are not). */
export const evaluationCompletions = pgTable(
  'evaluation_completions',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    completedAt: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.courseId] })],
);

/** The kinds of evidence_log entries. */
export const EVIDENCE_KINDS = [
  'chapter_time',
  'chapter_completed',
  'pre_test',
  'post_test',
  'evaluation',
  'certificate',
  'correction',
] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/**
 * The evidence trail: when each item was met and from which session; an admin's correction is an
 * entry of its own with its reason (never an update of an earlier one).
 */
export const evidenceLog = pgTable(
  'evidence_log',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    kind: text().$type<EvidenceKind>().notNull(),
    detail: jsonb().$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** The learner's session (its id's hash, as sessions are stored), or null: not from a session. */
    sessionId: text(),
    /** Who made a correction, or null. */
    actorId: text().references(() => users.id, { onDelete: 'set null' }),
    reason: text(),
    at: tstz().notNull().defaultNow(),
  },
  (t) => [
    index('evidence_log_learner_idx').on(t.userId, t.courseId, t.at),
    check(
      'evidence_log_kind',
      sql`${t.kind} in ('chapter_time', 'chapter_completed', 'pre_test', 'post_test', 'evaluation', 'certificate', 'correction')`,
    ),
    check('evidence_log_correction_reason', sql`${t.kind} <> 'correction' or length(${t.reason}) between 1 and 500`),
  ],
);

/**
 * What a certificate was issued on (certificates.evidence), written with it: the PDF prints it and
 * the Open Badges credential carries it as `evidence` and `results`. Minutes are the server's
 * measure of active time on the course's chapters; scores are percents; null: not taken or not
 * part of the course.
 */
export interface CertificateEvidence {
  /** Active minutes on the course's chapters (chapter_time), and their expected total. */
  minutes: number;
  expectedMinutes: number;
  preTestScore: number | null;
  postTestScore: number | null;
  evaluationDone: boolean;
  /** The accreditations credited by this certificate, as they stood at issue. */
  accreditations: { scheme: string; unit: string; reference: string; value: number; validFrom: string; validUntil: string | null }[];
}
