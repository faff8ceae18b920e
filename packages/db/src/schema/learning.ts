import { relations, sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { bundles, chapters, courses, type QuestionOption, quizzes } from './catalog.js';
import { enrollmentRequestStatus, purchaseStatus } from './enums.js';
import { users } from './people.js';
import type { CertificateEvidence } from './evidence.js';
import { tstz } from './timestamps.js';

export const enrollments = pgTable(
  'enrollments',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    enrolledAt: tstz().notNull().defaultNow(),
    /**
     * Distinct chapters of this course the user has completed. Kept by triggers on
     * chapter_completions (migration 0002_counters); never written by application code.
     */
    completedChapters: integer().notNull().default(0),
  },
  (t) => [uniqueIndex('enrollments_user_course_key').on(t.userId, t.courseId), index('enrollments_course_idx').on(t.courseId)],
);

/**
 * A learner's request to join an `approval` course. At most one pending request per (user, course);
 * approving it creates the enrollment in the same transaction.
 */
export const enrollmentRequests = pgTable(
  'enrollment_requests',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    status: enrollmentRequestStatus().notNull().default('pending'),
    requestedAt: tstz().notNull().defaultNow(),
    decidedAt: tstz(),
    decidedBy: text().references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('enrollment_requests_one_pending_key').on(t.userId, t.courseId).where(sql`${t.status} = 'pending'`),
    index('enrollment_requests_course_idx').on(t.courseId, t.status),
    check('enrollment_requests_decided_has_time', sql`(${t.status} = 'pending') = (${t.decidedAt} is null)`),
  ],
);

/** One row per (user, chapter) the user has completed; the course is the chapter's own. */
export const chapterCompletions = pgTable(
  'chapter_completions',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    chapterId: integer().notNull(),
    courseId: integer().notNull(),
    completedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'chapter_completions_pkey', columns: [t.userId, t.chapterId] }),
    // (chapter, course) must be a real pair: a completion always counts toward its chapter's course.
    foreignKey({
      name: 'chapter_completions_chapter_fk',
      columns: [t.chapterId, t.courseId],
      foreignColumns: [chapters.id, chapters.courseId],
    }).onDelete('cascade'),
    index('chapter_completions_user_course_idx').on(t.userId, t.courseId),
    index('chapter_completions_chapter_idx').on(t.chapterId),
  ],
);

/** A question as an attempt keeps it (quiz_attempts.questions): what it showed and what scores it. */
export interface AttemptQuestion {
  id: number;
  questionText: string;
  questionType: string;
  points: number;
  options: QuestionOption[];
  correctAnswer: string | null;
}

export const quizAttempts = pgTable(
  'quiz_attempts',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    quizId: integer()
      .notNull()
      .references(() => quizzes.id, { onDelete: 'cascade' }),
    /** Null while the attempt is open (started, not yet submitted). */
    score: numeric({ precision: 5, scale: 2, mode: 'number' }),
    /** Null while the attempt is open. */
    passed: boolean(),
    /** When the attempt started (it counts toward maxAttempts from then on). */
    attemptedAt: tstz().notNull().defaultNow(),
    /** attemptedAt + the quiz's timeLimit, fixed at start; answers after it are refused. */
    expiresAt: tstz(),
    submittedAt: tstz(),
    /** What the learner answered: {questionId: optionId or text}. Scored on the server. */
    answers: jsonb().$type<Record<string, string>>(),
    /**
     * The questions as they were when the attempt started, answer keys included: the attempt is
     * shown and scored with these, whatever an author changes meanwhile. Null for attempts started
     * before migration 0008 (scored against the quiz's questions of the day).
     */
    questions: jsonb().$type<AttemptQuestion[]>(),
    /** The score it needed to pass, fixed at start like the questions. Null before migration 0008. */
    passMark: integer(),
  },
  (t) => [
    index('quiz_attempts_user_quiz_idx').on(t.userId, t.quizId),
    check('quiz_attempts_score_range', sql`${t.score} between 0 and 100`),
    check(
      'quiz_attempts_submitted_has_score',
      sql`(${t.submittedAt} is null) = (${t.score} is null) and (${t.score} is null) = (${t.passed} is null)`,
    ),
  ],
);

export const certificates = pgTable(
  'certificates',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    issuedAt: tstz().notNull().defaultNow(),
    /** Unguessable verification code (122 random bits) for the public /certificates/{code} page. */
    code: text().notNull().default(sql`replace(gen_random_uuid()::text, '-', '')`),
    /** The course's KUM when the certificate was issued (the certificate keeps it if the course changes). */
    kum: numeric({ precision: 8, scale: 2, mode: 'number' }),
    /** Set when an operator revoked it (`lms-admin certificate revoke`), with the reason. */
    revokedAt: tstz(),
    revokedReason: text(),
    /** When it stops being valid (the course's certificateValidMonths at issue), or null: never. */
    expiresAt: tstz(),
    /** The learner chose to keep it private: the public page then shows only that it exists and its status. */
    isPrivate: boolean().notNull().default(false),
    /** Salt of the credential subject's identity hash (Open Badges IdentityObject): no e-mail in clear. */
    subjectSalt: text().notNull().default(sql`replace(gen_random_uuid()::text, '-', '')`),
    /** The revoked certificate this one replaces (an admin's reissue), or null. */
    reissuedFrom: integer(),
    /**
     * The evidence the certificate was issued on, as it stood then (minutes, pre/post-test scores,
     * evaluation, accreditations credited): what the PDF prints and the credential carries. Null on
     * certificates from before credit evidence.
     */
    evidence: jsonb().$type<CertificateEvidence>(),
    /**
     * Where its revocation bit is: Bitstring Status List floor(e / 131072) + 1, index e mod 131072.
     * A random free index of the current list (lms_next_status_entry, packages/db/sql), so the
     * public lists say nothing of how many certificates exist; certificates from before migration
     * 0016 keep e = id, which their downloaded credentials name.
     */
    statusEntry: integer().notNull().default(sql`lms_next_status_entry()`),
  },
  (t) => [
    // One certificate in force per learner and course; revoked ones stay, for their status and history.
    uniqueIndex('certificates_user_course_key').on(t.userId, t.courseId).where(sql`revoked_at is null`),
    index('certificates_user_idx').on(t.userId, t.issuedAt),
    uniqueIndex('certificates_code_key').on(t.code),
    index('certificates_course_idx').on(t.courseId),
    index('certificates_issued_idx').on(t.issuedAt),
    uniqueIndex('certificates_status_entry_key').on(t.statusEntry),
    // A status list reads its revoked bits only.
    index('certificates_revoked_status_idx').on(t.statusEntry).where(sql`revoked_at is not null`),
  ],
);

/** A purchase of one course or one bundle (exactly one of the two). */
export const purchases = pgTable(
  'purchases',
  {
    id: serial().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courseId: integer().references(() => courses.id, { onDelete: 'set null' }),
    bundleId: integer().references(() => bundles.id, { onDelete: 'set null' }),
    amount: numeric({ precision: 14, scale: 2 }).notNull(),
    currency: text().notNull().default('IDR'),
    status: purchaseStatus().notNull().default('paid'),
    /** Set when status is paid. */
    paidAt: tstz(),
    createdAt: tstz().notNull().defaultNow(),
    /** The payment provider that handles it (today only 'bank_transfer', confirmed by an admin). */
    provider: text().notNull().default('bank_transfer'),
    /** What the buyer writes on the transfer so an admin can match it; unique when set. */
    reference: text(),
    /** The admin who confirmed the payment. */
    confirmedBy: text().references(() => users.id, { onDelete: 'set null' }),
    /** A pending purchase expires then (PURCHASE_PENDING_HOURS after it started); null for older rows. */
    expiresAt: tstz(),
    /** When it was closed unpaid (cancelled, rejected, expired), by whom (null: it expired), and an admin's reason. */
    closedAt: tstz(),
    closedBy: text().references(() => users.id, { onDelete: 'set null' }),
    closeReason: text(),
    /** The last undo of an admin's confirmation (within 15 minutes, before the course was used): when and by whom. */
    confirmationUndoneAt: tstz(),
    confirmationUndoneBy: text().references(() => users.id, { onDelete: 'set null' }),
    /**
     * A refund revokes the certificates earned through the purchase, unless the admin keeps them:
     * then why, recorded here (null: none kept, or not refunded).
     */
    certificateKeptReason: text(),
  },
  (t) => [
    check('purchases_amount_nonnegative', sql`${t.amount} >= 0`),
    check(
      'purchases_certificate_kept_reason_refunded',
      sql`${t.certificateKeptReason} is null or (${t.status} = 'refunded' and char_length(${t.certificateKeptReason}) between 1 and 500)`,
    ),
    check('purchases_paid_has_time', sql`${t.status} <> 'paid' or ${t.paidAt} is not null`),
    index('purchases_user_idx').on(t.userId),
    uniqueIndex('purchases_reference_key').on(t.reference),
    // One open purchase per buyer and item: a second click returns the first.
    uniqueIndex('purchases_one_pending_course_key')
      .on(t.userId, t.courseId)
      .where(sql`${t.status} = 'pending' and ${t.courseId} is not null`),
    uniqueIndex('purchases_one_pending_bundle_key')
      .on(t.userId, t.bundleId)
      .where(sql`${t.status} = 'pending' and ${t.bundleId} is not null`),
    index('purchases_course_idx').on(t.courseId),
    index('purchases_bundle_idx').on(t.bundleId),
    index('purchases_paid_at_idx').on(t.paidAt).where(sql`${t.status} = 'paid'`),
    // What housekeeping expires, and the admins' list of transfers to confirm (oldest first).
    index('purchases_pending_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    index('purchases_pending_created_idx').on(t.createdAt, t.id).where(sql`${t.status} = 'pending'`),
    // Paid purchases whose course or bundle was deleted (both set null): still counted overall.
    index('purchases_paid_orphan_idx').on(t.id).where(sql`${t.status} = 'paid' and ${t.courseId} is null and ${t.bundleId} is null`),
  ],
);

export const enrollmentsRelations = relations(enrollments, ({ one }) => ({
  user: one(users, { fields: [enrollments.userId], references: [users.id] }),
  course: one(courses, { fields: [enrollments.courseId], references: [courses.id] }),
}));

export const enrollmentRequestsRelations = relations(enrollmentRequests, ({ one }) => ({
  user: one(users, { fields: [enrollmentRequests.userId], references: [users.id] }),
  course: one(courses, { fields: [enrollmentRequests.courseId], references: [courses.id] }),
}));

export const chapterCompletionsRelations = relations(chapterCompletions, ({ one }) => ({
  user: one(users, { fields: [chapterCompletions.userId], references: [users.id] }),
  chapter: one(chapters, { fields: [chapterCompletions.chapterId], references: [chapters.id] }),
}));

export const quizAttemptsRelations = relations(quizAttempts, ({ one }) => ({
  user: one(users, { fields: [quizAttempts.userId], references: [users.id] }),
  quiz: one(quizzes, { fields: [quizAttempts.quizId], references: [quizzes.id] }),
}));

export const certificatesRelations = relations(certificates, ({ one }) => ({
  user: one(users, { fields: [certificates.userId], references: [users.id] }),
  course: one(courses, { fields: [certificates.courseId], references: [courses.id] }),
}));

export const purchasesRelations = relations(purchases, ({ one }) => ({
  user: one(users, { fields: [purchases.userId], references: [users.id] }),
  course: one(courses, { fields: [purchases.courseId], references: [courses.id] }),
  bundle: one(bundles, { fields: [purchases.bundleId], references: [bundles.id] }),
}));
