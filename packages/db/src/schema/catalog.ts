import { CREDIT_SCHEME, DEFAULT_CREDIT_SCHEME, QUESTION_KINDS } from '@lms/contracts/lists';
import { relations, sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { courseType, enrollmentType, quizScope } from './enums.js';
import { institutions, users } from './people.js';
import { timestamps, tstz } from './timestamps.js';

/** One section of a course's detail page (admissions, academics, ...). Every field optional. */
export interface DetailSection {
  requirements?: string;
  applicationDeadline?: string;
  prerequisites?: string;
  credits?: string;
  workload?: string;
  assessment?: string;
  totalCost?: number;
  paymentOptions?: string;
  scholarships?: string;
  outcomes?: string;
  industries?: string;
  averageSalary?: string;
  testimonials?: string;
  facilities?: string;
  support?: string;
}

export interface QuestionOption {
  id: string;
  text: string;
  /** Answer key: stripped for API-key callers and students. */
  isCorrect?: boolean;
}

export const categories = pgTable(
  'categories',
  {
    id: serial().primaryKey(),
    code: text().notNull(),
    name: text().notNull(),
  },
  (t) => [uniqueIndex('categories_code_key').on(t.code)],
);

/** Money: numeric(14,2), read as decimal text so nothing is lost to floating point. */
const money = () => numeric({ precision: 14, scale: 2 });

export const courses = pgTable(
  'courses',
  {
    id: serial().primaryKey(),
    name: text().notNull(),
    description: text().notNull().default(''),
    instructor: text().notNull().default(''),
    courseCode: text().notNull().default(''),
    type: courseType().notNull().default('self_paced'),
    enrollmentType: enrollmentType().notNull().default('code'),
    enrollmentCode: text(),
    startDate: tstz(),
    endDate: tstz(),
    teacherId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    institutionId: integer()
      .notNull()
      .references(() => institutions.id, { onDelete: 'restrict' }),
    categoryId: integer().references(() => categories.id, { onDelete: 'set null' }),
    /** Buyer-visible = isPublished AND eventCode is not null. */
    eventCode: text(),
    isPublished: boolean().notNull().default(false),
    nilaiKum: numeric({ precision: 8, scale: 2, mode: 'number' }),
    /** The credit scheme the course's points count in (KUM for lecturers, SKP for health professions…). */
    creditScheme: text().notNull().default(DEFAULT_CREDIT_SCHEME),
    /** Months a certificate of this course stays valid, or null: it does not expire. */
    certificateValidMonths: integer(),
    coverPicture: text(),
    previewMode: boolean().notNull().default(false),
    isPurchasable: boolean().notNull().default(true),
    price: money().notNull().default('0'),
    priceNonMember: money(),
    priceMahasiswa: money(),
    currency: text().notNull().default('IDR'),
    minPassingScore: integer().notNull().default(70),
    /** The post-test's minimum score for this course, or null: the scheme's (credit evidence). */
    postTestMinScore: integer(),
    /** The course's own evaluation items, or null: its scheme's (credit evidence). */
    evaluationItems: jsonb().$type<{ key: string; id: string; en: string }[]>(),
    admissions: jsonb().$type<DetailSection>(),
    academics: jsonb().$type<DetailSection>(),
    tuitionAndFinancing: jsonb().$type<DetailSection>(),
    careers: jsonb().$type<DetailSection>(),
    studentExperience: jsonb().$type<DetailSection>(),
    // Counters kept by database triggers (migration 0002_counters) so that lists, sorting and
    // metrics never aggregate raw rows per request.
    moduleCount: integer().notNull().default(0),
    chapterCount: integer().notNull().default(0),
    studentCount: integer().notNull().default(0),
    // Progress aggregates kept by triggers (migration 0003_progress_aggregates):
    /** Σ enrollments.completed_chapters of this course. */
    completedChaptersSum: bigint({ mode: 'number' }).notNull().default(0),
    /** Enrollments with chapter_count > 0 and completed_chapters >= chapter_count. */
    completedEnrollmentCount: integer().notNull().default(0),
    certificateCount: integer().notNull().default(0),
    /** Paid purchases of this course (status = 'paid'). */
    paidPurchaseCount: integer().notNull().default(0),
    /** What catalog search matches, minus the category (joined): trigram-indexed. */
    searchText: text().generatedAlwaysAs(sql`name || chr(31) || description || chr(31) || instructor || chr(31) || course_code`),
    /** Bumped by every change of the course's own fields: the studio's settings form refuses a save made on an older one. */
    version: integer().notNull().default(1),
    ...timestamps,
  },
  (t) => [
    index('courses_teacher_idx').on(t.teacherId),
    index('courses_category_idx').on(t.categoryId),
    index('courses_institution_idx').on(t.institutionId),
    index('courses_buyer_visible_idx').on(t.id.desc()).where(sql`${t.isPublished} and ${t.eventCode} is not null`),
    index('courses_search_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
    check('courses_price_nonnegative', sql`${t.price} >= 0`),
    check('courses_price_non_member_nonnegative', sql`${t.priceNonMember} >= 0`),
    check('courses_price_mahasiswa_nonnegative', sql`${t.priceMahasiswa} >= 0`),
    check('courses_dates_ordered', sql`${t.endDate} is null or ${t.startDate} is null or ${t.endDate} >= ${t.startDate}`),
    check('courses_credit_scheme_shape', sql`${t.creditScheme} ~ ${sql.raw(`'${CREDIT_SCHEME.source}'`)}`),
    check('courses_certificate_valid_months', sql`${t.certificateValidMonths} between 1 and 600`),
    check('courses_post_test_min_score', sql`${t.postTestMinScore} between 0 and 100`),
  ],
);

export const modules = pgTable(
  'modules',
  {
    id: serial().primaryKey(),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull().default(''),
    orderIndex: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [index('modules_course_order_idx').on(t.courseId, t.orderIndex), unique('modules_id_course_key').on(t.id, t.courseId)],
);

export const chapters = pgTable(
  'chapters',
  {
    id: serial().primaryKey(),
    moduleId: integer().notNull(),
    /** The module's course, kept here so completions can be tied to a course by a foreign key. */
    courseId: integer().notNull(),
    name: text().notNull(),
    content: text().notNull().default(''),
    orderIndex: integer().notNull().default(0),
    /** Minutes a learner is expected to spend on it (set by the author), or null: estimated from the text and video (credit evidence). */
    expectedMinutes: integer(),
    /** Bumped by every change of name or content: the studio's editor refuses a save made on an older one. */
    version: integer().notNull().default(1),
    ...timestamps,
  },
  (t) => [
    foreignKey({ name: 'chapters_module_fk', columns: [t.moduleId, t.courseId], foreignColumns: [modules.id, modules.courseId] }).onDelete(
      'cascade',
    ),
    foreignKey({ name: 'chapters_course_fk', columns: [t.courseId], foreignColumns: [courses.id] }).onDelete('cascade'),
    index('chapters_module_order_idx').on(t.moduleId, t.orderIndex),
    index('chapters_course_idx').on(t.courseId),
    unique('chapters_id_course_key').on(t.id, t.courseId),
    check('chapters_expected_minutes', sql`${t.expectedMinutes} between 1 and 1440`),
  ],
);

export const quizzes = pgTable(
  'quizzes',
  {
    id: serial().primaryKey(),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    scope: quizScope().notNull(),
    moduleId: integer().references(() => modules.id, { onDelete: 'cascade' }),
    chapterId: integer().references(() => chapters.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull().default(''),
    quizType: text().notNull().default('multiple_choice'),
    minimumScore: integer().notNull().default(70),
    /** Minutes. */
    timeLimit: integer().notNull().default(30),
    maxAttempts: integer().notNull().default(3),
    /** 'pre_test' or 'post_test' (credit evidence), or null: an ordinary quiz. One of each per course. */
    evidenceRole: text().$type<'pre_test' | 'post_test'>(),
    /** Bumped by every write of the quiz: the studio's quiz editor refuses a save made on an older one. */
    version: integer().notNull().default(1),
    /** Questions drawn at random from the course's bank for each attempt (beside the quiz's own), or null: none. */
    drawCount: integer(),
    /** Draw only bank questions carrying this tag, or null: any of the bank. */
    drawTag: text(),
    /** Each attempt shows the options of its choice questions in its own order (kept with the attempt). */
    shuffleOptions: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [
    check('quizzes_draw_count_range', sql`${t.drawCount} between 1 and 100`),
    check(
      'quizzes_scope_matches_parent',
      sql`(${t.scope} = 'chapter' and ${t.chapterId} is not null)
       or (${t.scope} = 'module' and ${t.moduleId} is not null and ${t.chapterId} is null)
       or (${t.scope} = 'final' and ${t.moduleId} is null and ${t.chapterId} is null)`,
    ),
    check('quizzes_minimum_score_range', sql`${t.minimumScore} between 0 and 100`),
    check('quizzes_max_attempts_positive', sql`${t.maxAttempts} >= 1`),
    index('quizzes_course_idx').on(t.courseId),
    index('quizzes_module_idx').on(t.moduleId),
    index('quizzes_chapter_idx').on(t.chapterId),
    uniqueIndex('quizzes_one_final_per_course').on(t.courseId).where(sql`${t.scope} = 'final'`),
    uniqueIndex('quizzes_one_evidence_role_per_course').on(t.courseId, t.evidenceRole).where(sql`${t.evidenceRole} is not null`),
    check('quizzes_evidence_role', sql`${t.evidenceRole} in ('pre_test', 'post_test')`),
  ],
);

/** A question's own columns, the same for a quiz's (questions) and the bank's (bank_questions). */
const questionColumns = () => ({
  questionText: text().notNull(),
  questionType: text({ enum: QUESTION_KINDS }).notNull().default('multiple_choice'),
  /** [{id, text, isCorrect}]; isCorrect is an answer key. */
  options: jsonb().$type<QuestionOption[]>().notNull().default([]),
  // Answer keys: never sent to API-key callers or students.
  correctAnswer: text(),
  essayAnswer: text(),
  explanation: text(),
  points: integer().notNull().default(1),
  orderIndex: integer().notNull().default(0),
});

export const questions = pgTable(
  'questions',
  {
    id: serial().primaryKey(),
    quizId: integer()
      .notNull()
      .references(() => quizzes.id, { onDelete: 'cascade' }),
    ...questionColumns(),
    ...timestamps,
  },
  (t) => [index('questions_quiz_order_idx').on(t.quizId, t.orderIndex), check('questions_points_nonnegative', sql`${t.points} >= 0`)],
);

/**
 * A course's question bank: questions no quiz owns, which a quiz with a drawCount draws from at
 * random for each attempt. Ids come from the questions' sequence, so a bank question and a quiz's
 * own question never share an id within an attempt (answers are keyed by question id).
 */
export const bankQuestions = pgTable(
  'bank_questions',
  {
    id: integer().primaryKey().default(sql`nextval('questions_id_seq')`),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    /** Labels a quiz may draw from (drawTag), lower case. */
    tags: text().array().notNull().default(sql`'{}'::text[]`),
    ...questionColumns(),
    ...timestamps,
  },
  (t) => [
    index('bank_questions_course_order_idx').on(t.courseId, t.orderIndex),
    check('bank_questions_points_nonnegative', sql`${t.points} >= 0`),
  ],
);

/** A recommended pair of two different courses, usually sold at a discount. */
export const bundles = pgTable(
  'bundles',
  {
    id: serial().primaryKey(),
    name: text().notNull(),
    description: text().notNull().default(''),
    categoryId: integer()
      .notNull()
      .references(() => categories.id, { onDelete: 'restrict' }),
    courseOneId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    courseTwoId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    /** Null: the sum of the two course prices. */
    price: money(),
    /** Null: falls back to `price`. */
    priceNonMember: money(),
    currency: text().notNull().default('IDR'),
    /** Paid purchases of this bundle; kept by a trigger (migration 0003_progress_aggregates). */
    paidPurchaseCount: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    check('bundles_two_different_courses', sql`${t.courseOneId} <> ${t.courseTwoId}`),
    check('bundles_price_nonnegative', sql`${t.price} >= 0`),
    check('bundles_price_non_member_nonnegative', sql`${t.priceNonMember} >= 0`),
    index('bundles_category_idx').on(t.categoryId),
    index('bundles_course_one_idx').on(t.courseOneId),
    index('bundles_course_two_idx').on(t.courseTwoId),
  ],
);

export const categoriesRelations = relations(categories, ({ many }) => ({
  courses: many(courses),
  bundles: many(bundles),
}));

export const coursesRelations = relations(courses, ({ one, many }) => ({
  teacher: one(users, { fields: [courses.teacherId], references: [users.id] }),
  institution: one(institutions, { fields: [courses.institutionId], references: [institutions.id] }),
  category: one(categories, { fields: [courses.categoryId], references: [categories.id] }),
  modules: many(modules),
  quizzes: many(quizzes),
}));

export const modulesRelations = relations(modules, ({ one, many }) => ({
  course: one(courses, { fields: [modules.courseId], references: [courses.id] }),
  chapters: many(chapters),
  quizzes: many(quizzes),
}));

export const chaptersRelations = relations(chapters, ({ one, many }) => ({
  module: one(modules, { fields: [chapters.moduleId], references: [modules.id] }),
  course: one(courses, { fields: [chapters.courseId], references: [courses.id] }),
  quizzes: many(quizzes),
}));

export const quizzesRelations = relations(quizzes, ({ one, many }) => ({
  course: one(courses, { fields: [quizzes.courseId], references: [courses.id] }),
  module: one(modules, { fields: [quizzes.moduleId], references: [modules.id] }),
  chapter: one(chapters, { fields: [quizzes.chapterId], references: [chapters.id] }),
  questions: many(questions),
}));

export const questionsRelations = relations(questions, ({ one }) => ({
  quiz: one(quizzes, { fields: [questions.quizId], references: [quizzes.id] }),
}));

export const bankQuestionsRelations = relations(bankQuestions, ({ one }) => ({
  course: one(courses, { fields: [bankQuestions.courseId], references: [courses.id] }),
}));

export const bundlesRelations = relations(bundles, ({ one }) => ({
  category: one(categories, { fields: [bundles.categoryId], references: [categories.id] }),
  courseOne: one(courses, { fields: [bundles.courseOneId], references: [courses.id], relationName: 'bundle_course_one' }),
  courseTwo: one(courses, { fields: [bundles.courseTwoId], references: [courses.id], relationName: 'bundle_course_two' }),
}));
