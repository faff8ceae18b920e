import type { Question } from '@lms/contracts';
import { categories, type chapterCompletions, courses, type Db, type enrollments, type quizAttempts, type RawSelect } from '@lms/db';
import { eq, type SQL, sql } from 'drizzle-orm';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import { publicOptionsOf } from '../rules/public-fields.js';
import { NO_ENROLMENT_CODE } from './enrolment-code.js';
import { passThroughCourseColumns } from './course-fields.js';
import { preparedPer } from '../../lib/prepared.js';

// The statements a catalog summary is read with: the course's columns, and its tree (modules,
// chapters, quizzes, the final exam's questions for its managers, the learner's records) in one
// statement per shape, prepared once per shape. ./course-summaries.ts builds the summaries
// from their rows.

/** `readsContent` for a viewer who reads the outline only (rules/content-access.ts). */
export const READS_OUTLINE: SQL<boolean> = sql<boolean>`false`;

/**
 * The course columns (and its category) that a catalog summary is built from. The enrolment code
 * is '' here: it gates enrolment, so only a caller who manages the course may read it, and a
 * caller that knows its viewer puts enrolmentCodeFor(viewer) in its place (enrolment-code.ts).
 * Likewise `readsContent` is false here, and true in a viewer's page statement for the courses
 * the viewer manages (the content rule: they read the final exam's questions; nobody else does
 * in the catalog).
 */
export const courseSummaryColumns = {
  id: courses.id,
  name: courses.name,
  courseCode: courses.courseCode,
  description: courses.description,
  instructor: courses.instructor,
  startDate: courses.startDate,
  endDate: courses.endDate,
  createdAt: courses.createdAt,
  enrollmentType: courses.enrollmentType,
  enrollmentCode: NO_ENROLMENT_CODE,
  readsContent: READS_OUTLINE,
  isPurchasable: courses.isPurchasable,
  price: courses.price,
  priceNonMember: courses.priceNonMember,
  priceMahasiswa: courses.priceMahasiswa,
  currency: courses.currency,
  previewMode: courses.previewMode,
  eventCode: courses.eventCode,
  nilaiKum: courses.nilaiKum,
  categoryId: courses.categoryId,
  categoryCode: categories.code,
  categoryName: categories.name,
  coverPicture: courses.coverPicture,
  moduleCount: courses.moduleCount,
  chapterCount: courses.chapterCount,
  studentCount: courses.studentCount,
  minPassingScore: courses.minPassingScore,
  ...passThroughCourseColumns,
};

/**
 * A catalog summary row: courseSummaryColumns as Drizzle types their select, the category's
 * columns nullable (every statement reads them through a left join).
 */
export type CourseSummaryRow = Omit<SelectResultFields<typeof courseSummaryColumns>, 'categoryCode' | 'categoryName'> & {
  [K in 'categoryCode' | 'categoryName']: SelectResultFields<typeof courseSummaryColumns>[K] | null;
};

export interface CourseTree {
  modules: { id: number; courseId: number; name: string; description: string; orderIndex: number }[];
  chapters: { id: number; moduleId: number; courseId: number; name: string; orderIndex: number }[];
  quizzes: {
    id: number;
    courseId: number;
    scope: 'chapter' | 'module' | 'final';
    moduleId: number | null;
    chapterId: number | null;
    name: string;
    minimumScore: number;
    timeLimit: number;
    maxAttempts: number;
    questionCount: number;
    /** 'pre_test' | 'post_test' | null (credit evidence). */
    evidenceRole: 'pre_test' | 'post_test' | null;
  }[];
  finalQuestions: Question[];
}

/** The rows of the trees statement of this shape for these courses (and this learner's records, for a learner). */
export function loadTreeRows(db: Db, ids: number[], learnerId: string | null, shape: Omit<TreesShape, 'learner'>) {
  const statement = treesStatement(db, { ...shape, learner: learnerId !== null });
  return statement.execute(learnerId === null ? { ids } : { ids, userId: learnerId });
}

/** Per course (`course`: its id in the outer statement), its final exams' questions, never with answer keys (for the course's managers only: buildPublicCourses). */
function finalQuestionsOf(course: SQL) {
  return sql<Question[]>`coalesce((
  select json_agg(json_build_object('id', qu.id, 'quizId', qu.quiz_id, 'questionText', qu.question_text,
    'questionType', qu.question_type, 'options', ${publicOptionsOf(sql`qu.options`)}, 'orderIndex', qu.order_index,
    'points', qu.points) order by qu.quiz_id, qu.order_index, qu.id)
  from questions qu join quizzes fq on fq.id = qu.quiz_id
  where fq.course_id = ${course} and fq.scope = 'final'
), '[]'::json)`;
}

/**
 * The shape of the trees statement: with the final exams' questions or not, with a learner's
 * records or not, with the courses' summary rows (courseSummaryColumns) or not.
 */
export interface TreesShape {
  finalQuestions: boolean;
  learner: boolean;
  rows: boolean;
}

/**
 * The trees of the given courses in one statement: per course, its modules, chapters, quizzes
 * (with their question counts) and final-exam questions, each as a JSON array built by
 * PostgreSQL in the order the summaries need; for a learner, in the same row, their records on
 * that course (learnerColumnsOf); for a caller that has only the ids, the course's summary row.
 * One round trip whatever the number of courses and whoever asks: on this service's hot path a
 * statement costs more in the driver and the socket than in SQL (a learner's records and the
 * bundles' course rows were statements of their own until 49f0cdd and 55d46f4). The
 * ids and the user are placeholders, so the text never changes and the statement is prepared
 * once per connection and shape (no parse, no re-planning, no query building per request).
 */
const treesStatementName = ({ finalQuestions, learner, rows }: TreesShape) =>
  `catalog_course${rows ? 's_with' : ''}_trees${finalQuestions ? '' : '_without_final_questions'}${learner ? '_with_learner' : ''}`;
const treesStatement = preparedPer(
  (shape: TreesShape) => treesStatementName(shape),
  (db, shape, name) => buildTreesStatement(db, shape, name),
);
/** The trees statement of the shapes with the courses' summary rows (typed apart: its rows carry courseSummaryColumns). */
export const summaryTreesStatement = preparedPer(
  (shape: TreesShape) => treesStatementName(shape),
  (db, shape, name) => buildSummaryTreesStatement(db, shape, name),
);

/** A course's modules, chapters and quizzes as JSON arrays (`course`: its id in the outer statement). */
function treeColumnsOf(course: SQL) {
  return {
    modules: sql<CourseTree['modules']>`coalesce((
    select json_agg(json_build_object('id', m.id, 'courseId', m.course_id, 'name', m.name, 'description', m.description,
      'orderIndex', m.order_index) order by m.order_index, m.id)
    from modules m where m.course_id = ${course}
  ), '[]'::json)`,
    chapters: sql<CourseTree['chapters']>`coalesce((
    select json_agg(json_build_object('id', ch.id, 'moduleId', ch.module_id, 'courseId', ch.course_id, 'name', ch.name,
      'orderIndex', ch.order_index) order by ch.module_id, ch.order_index, ch.id)
    from chapters ch where ch.course_id = ${course}
  ), '[]'::json)`,
    quizzes: sql<CourseTree['quizzes']>`coalesce((
    select json_agg(json_build_object('id', q.id, 'courseId', q.course_id, 'scope', q.scope, 'moduleId', q.module_id,
      'chapterId', q.chapter_id, 'name', q.name, 'minimumScore', q.minimum_score, 'timeLimit', q.time_limit,
      'maxAttempts', q.max_attempts, 'questionCount', (select count(*) from questions n where n.quiz_id = q.id),
      'evidenceRole', q.evidence_role) order by q.id)
    from quizzes q where q.course_id = ${course}
  ), '[]'::json)`,
  };
}

/** A learner's records on a course (`course`: its id in the outer statement; the user is the `userId` placeholder), as columns of its tree row. */
function learnerColumnsOf(course: SQL) {
  const userId = sql.placeholder('userId');
  return {
    completedChapters: sql<
      RawSelect<typeof enrollments>['completedChapters'] | null
    >`(select e.completed_chapters from enrollments e where e.user_id = ${userId} and e.course_id = ${course})`,
    completedChapterIds: sql<RawSelect<typeof chapterCompletions>['chapterId'][]>`coalesce((
      select json_agg(cc.chapter_id) from chapter_completions cc where cc.user_id = ${userId} and cc.course_id = ${course}
    ), '[]'::json)`,
    finalAttempts: sql<{ quizId: RawSelect<typeof quizAttempts>['quizId']; attempts: number; passed: boolean }[]>`coalesce((
      select json_agg(json_build_object('quizId', a.quiz_id, 'attempts', a.attempts, 'passed', a.passed))
      from (
        select qa.quiz_id, count(*)::int as attempts, bool_or(qa.passed) as passed
        from quiz_attempts qa join quizzes fq on fq.id = qa.quiz_id
        where qa.user_id = ${userId} and fq.course_id = ${course} and fq.scope = 'final'
        group by qa.quiz_id
      ) a
    ), '[]'::json)`,
    passedQuizIds: sql<RawSelect<typeof quizAttempts>['quizId'][]>`coalesce((
      select json_agg(distinct pq.quiz_id) from quiz_attempts pq join quizzes gq on gq.id = pq.quiz_id
      where pq.user_id = ${userId} and gq.course_id = ${course} and gq.scope <> 'final' and pq.passed
    ), '[]'::json)`,
    certified: sql<boolean>`exists (select 1 from certificates ce where ce.user_id = ${userId} and ce.course_id = ${course} and ce.revoked_at is null)`,
    // Credit evidence: the pre-test taken (the unlock rule), and whether an accreditation in force asks for evidence
    // (then a finished course without its certificate is waiting for it: learner-status.ts).
    preTestTaken: sql<boolean>`exists (select 1 from quiz_attempts pt join quizzes ptq on ptq.id = pt.quiz_id
      where pt.user_id = ${userId} and ptq.course_id = ${course} and ptq.evidence_role = 'pre_test' and pt.score is not null)`,
    evidenceRequired: sql<boolean>`exists (select 1 from course_accreditations ca join credit_schemes cs on cs.code = ca.scheme
      where ca.course_id = ${course} and ca.valid_from <= now() and (ca.valid_until is null or ca.valid_until > now())
        and (cs.requires_pre_test or cs.post_test_min_score is not null or cs.requires_evaluation))`,
  };
}

/** The trees statement's columns for a course (`course`: its id in the outer statement). */
function treesColumnsOf(shape: TreesShape, course: SQL) {
  return {
    courseId: sql<number>`${course}`,
    ...treeColumnsOf(course),
    finalQuestions: shape.finalQuestions ? finalQuestionsOf(course) : sql<Question[]>`'[]'::json`,
    ...(shape.learner ? learnerColumnsOf(course) : {}),
  };
}

function buildTreesStatement(db: Db, shape: TreesShape, name: string) {
  const ids = sql.placeholder('ids');
  // The course as `c`, written out: in a one-table select Drizzle renders its columns
  // unqualified, which inside these subqueries would bind to the inner tables.
  return db.select(treesColumnsOf(shape, sql`c.id`)).from(sql`courses c`).where(sql`c.id = any(${ids}::int[])`).prepare(name);
}

function buildSummaryTreesStatement(db: Db, shape: TreesShape, name: string) {
  const ids = sql.placeholder('ids');
  // A join, so Drizzle qualifies every column ("courses"."id"): the subqueries' own tables all
  // have aliases of their own, so the outer course is never shadowed.
  return db
    .select({ ...courseSummaryColumns, ...treesColumnsOf(shape, sql`${courses.id}`) })
    .from(courses)
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(sql`${courses.id} = any(${ids}::int[])`)
    .prepare(name);
}

/**
 * A row of the trees statement, as Drizzle types it over every shape: the course and its tree,
 * the learner's columns (learnerColumnsOf) when the statement has them.
 */
export type TreeRow = Awaited<ReturnType<typeof loadTreeRows>>[number];
