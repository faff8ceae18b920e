import {
  type ChapterSummary,
  type ModuleSummary,
  OPEN_ENDED_END_DATE,
  type PublicCourse,
  type Question,
  type QuizSummary,
} from '@lms/contracts';
import { categories, type chapterCompletions, courses, type Db, type enrollments, type quizAttempts, type RawSelect } from '@lms/db';
import { eq, type SQL, sql } from 'drizzle-orm';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import { categoryOf, groupBy, publicOptionsOf } from '../rules/public-fields.js';
import { learnerStanding, round2 } from '../rules/learner-status.js';
import { passMarkOf } from '../rules/pass-mark.js';
import { toIso } from './viewer.js';
import { computeUnlock } from '../rules/unlock.js';
import { NO_ENROLMENT_CODE } from './enrolment-code.js';
import { passThroughCourseColumns, passThroughCourseFields } from './course-fields.js';
import { preparedPer } from '../../lib/prepared.js';

/** `readsContent` for a viewer who reads the outline only (rules/content-access.ts). */
const READS_OUTLINE: SQL<boolean> = sql<boolean>`false`;

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
 * A catalog summary as the domain hands it over: the contract's PublicCourse, and the number of
 * questions of the final exam, which the pages show to people who may not read the questions
 * themselves. The JSON answers do not carry it: the contract's FinalExam declares no such field,
 * and the compiled serializers write only declared fields.
 */
export type CatalogCourse = PublicCourse & { finalExam: PublicCourse['finalExam'] & { questionCount: number } };

/**
 * A catalog summary row: courseSummaryColumns as Drizzle types their select, the category's
 * columns nullable (every statement reads them through a left join).
 */
export type CourseSummaryRow = Omit<SelectResultFields<typeof courseSummaryColumns>, 'categoryCode' | 'categoryName'> & {
  [K in 'categoryCode' | 'categoryName']: SelectResultFields<typeof courseSummaryColumns>[K] | null;
};

interface CourseTree {
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
  }[];
  finalQuestions: Question[];
}

interface LearnerRecords {
  completedChapters: Map<number, number>;
  completedChapterIds: Set<number>;
  finalAttempts: Map<number, { attempts: number; passed: boolean }>;
  /** Chapter and module quizzes the learner passed (they gate what follows: the unlock rule). */
  passedQuizIds: Set<number>;
  certificates: Set<number>;
}

/**
 * Catalog summaries (PublicCourse) of the given course rows, in their order, with the learner's
 * progress (null: an API key, not-started defaults). One statement whatever the number of
 * courses: their trees, and for a learner their records on each course in the same rows. The
 * final exams' questions are built only when a row's viewer reads them (`readsContent`): for a
 * student's or an API key's page PostgreSQL does not build them at all.
 */
export async function buildPublicCourses(db: Db, rows: CourseSummaryRow[], learnerId: string | null): Promise<CatalogCourse[]> {
  if (rows.length === 0) return [];
  const treeRows = await loadTreeRows(
    db,
    rows.map((r) => r.id),
    learnerId,
    { finalQuestions: rows.some((r) => r.readsContent), rows: false },
  );
  return summariesOf(rows, treeRows, learnerId);
}

/**
 * Catalog summaries of the courses with these ids, as buildPublicCourses makes them for a viewer
 * who reads their outline only (no final exam questions), in the ids' order (an id with no course
 * is left out): for a caller that knows the ids but not the rows (the bundles), the rows come in
 * the same statement as the trees, so it is still one statement.
 */
export async function loadPublicCourses(db: Db, ids: number[], learnerId: string | null): Promise<CatalogCourse[]> {
  if (ids.length === 0) return [];
  const treeRows = await summaryTreesStatement(db, { finalQuestions: false, learner: learnerId !== null, rows: true }).execute(
    learnerId === null ? { ids } : { ids, userId: learnerId },
  );
  const byId = new Map(treeRows.map((row) => [row.courseId, row]));
  const rows = ids.flatMap((id) => byId.get(id) ?? []);
  return summariesOf(rows, treeRows, learnerId);
}

/** The rows of the trees statement of this shape for these courses (and this learner's records, for a learner). */
function loadTreeRows(db: Db, ids: number[], learnerId: string | null, shape: Omit<TreesShape, 'learner'>) {
  const statement = treesStatement(db, { ...shape, learner: learnerId !== null });
  return statement.execute(learnerId === null ? { ids } : { ids, userId: learnerId });
}

/** The summaries of `rows` from their tree rows (and the learner's records in them, for a learner). */
function summariesOf(rows: CourseSummaryRow[], treeRows: TreeRow[], learnerId: string | null): CatalogCourse[] {
  const tree: CourseTree = { modules: [], chapters: [], quizzes: [], finalQuestions: [] };
  for (const row of treeRows) {
    tree.modules.push(...row.modules);
    tree.chapters.push(...row.chapters);
    tree.quizzes.push(...row.quizzes);
    tree.finalQuestions.push(...row.finalQuestions);
  }
  const grouped: GroupedTree = {
    modules: groupBy(tree.modules, (m) => m.courseId),
    chapters: groupBy(tree.chapters, (c) => c.moduleId),
    quizzes: groupBy(tree.quizzes, (q) => q.courseId),
    finalQuestions: groupBy(tree.finalQuestions, (q) => q.quizId),
  };
  const learner = learnerId === null ? null : learnerRecords(treeRows);
  return rows.map((row) => summarize(row, grouped, learner));
}

interface GroupedTree {
  modules: Map<number, CourseTree['modules']>;
  chapters: Map<number, CourseTree['chapters']>;
  quizzes: Map<number, CourseTree['quizzes']>;
  finalQuestions: Map<number, Question[]>;
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
interface TreesShape {
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
const summaryTreesStatement = preparedPer(
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
      'maxAttempts', q.max_attempts, 'questionCount', (select count(*) from questions n where n.quiz_id = q.id)) order by q.id)
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
type TreeRow = Awaited<ReturnType<typeof loadTreeRows>>[number];

/** The learner's records on the courses, from the learner columns of their tree rows (a statement with them: a learner's). */
function learnerRecords(rows: TreeRow[]): LearnerRecords {
  const records: LearnerRecords = {
    completedChapters: new Map(),
    completedChapterIds: new Set(),
    finalAttempts: new Map(),
    passedQuizIds: new Set(),
    certificates: new Set(),
  };
  for (const row of rows) {
    if (row.completedChapters != null) records.completedChapters.set(row.courseId, row.completedChapters);
    for (const id of row.completedChapterIds ?? []) records.completedChapterIds.add(id);
    for (const a of row.finalAttempts ?? []) records.finalAttempts.set(a.quizId, { attempts: a.attempts, passed: a.passed });
    for (const id of row.passedQuizIds ?? []) records.passedQuizIds.add(id);
    if (row.certified) records.certificates.add(row.courseId);
  }
  return records;
}

function quizSummary(q: CourseTree['quizzes'][number]): QuizSummary {
  return {
    id: String(q.id),
    title: q.name,
    type: q.scope === 'module' ? 'module' : 'chapter',
    minimumScore: q.minimumScore,
    timeLimit: q.timeLimit,
    maxAttempts: q.maxAttempts,
    questionCount: q.questionCount,
  };
}

function summarize(row: CourseSummaryRow, tree: GroupedTree, learner: LearnerRecords | null): CatalogCourse {
  const done = (chapterId: number) => learner?.completedChapterIds.has(chapterId) ?? false;
  const courseModules = tree.modules.get(row.id) ?? [];
  const courseQuizzes = tree.quizzes.get(row.id) ?? [];

  // Each chapter's and module's first quiz (quizzes come in id order), looked up by id below.
  const chapterQuizzes = new Map<number, CourseTree['quizzes'][number]>();
  const moduleQuizzes = new Map<number, CourseTree['quizzes'][number]>();
  for (const q of courseQuizzes) {
    if (q.scope === 'chapter' && q.chapterId !== null && !chapterQuizzes.has(q.chapterId)) chapterQuizzes.set(q.chapterId, q);
    else if (q.scope === 'module' && q.moduleId !== null && !moduleQuizzes.has(q.moduleId)) moduleQuizzes.set(q.moduleId, q);
  }
  const chapterQuiz = new Map<number, number>();
  for (const [chapterId, q] of chapterQuizzes) chapterQuiz.set(chapterId, q.id);
  // The unlock rule (documented in contracts UNLOCK_RULE; the learning routes enforce the same function).
  const unlock = computeUnlock(
    {
      modules: courseModules.map((m) => ({
        id: m.id,
        chapters: tree.chapters.get(m.id) ?? [],
        quizId: moduleQuizzes.get(m.id)?.id ?? null,
      })),
      chapterQuiz,
      finalQuizId: null,
    },
    { completedChapters: learner?.completedChapterIds ?? new Set(), passedQuizzes: learner?.passedQuizIds ?? new Set() },
  );
  const moduleSummaries: ModuleSummary[] = courseModules.map((m) => {
    const moduleChapters = tree.chapters.get(m.id) ?? [];
    const completed = moduleChapters.filter((c) => done(c.id)).length;
    // biome-ignore lint/style/noNonNullAssertion: the unlock rule was computed over this same course tree.
    const moduleUnlocked = unlock.module.get(m.id)!.unlocked;
    const chapterSummaries: ChapterSummary[] = moduleChapters.map((c) => {
      const chapterDone = done(c.id);
      // biome-ignore lint/style/noNonNullAssertion: the unlock rule was computed over this same course tree.
      const unlocked = unlock.chapter.get(c.id)!.unlocked;
      const quiz = chapterQuizzes.get(c.id);
      return {
        id: String(c.id),
        title: c.name,
        order: c.orderIndex,
        contents: [],
        quiz: quiz ? quizSummary(quiz) : null,
        isUnlocked: unlocked,
        completionPercentage: chapterDone ? 100 : 0,
      };
    });
    const moduleQuiz = moduleQuizzes.get(m.id);
    return {
      id: String(m.id),
      title: m.name,
      description: m.description,
      order: m.orderIndex,
      chapterCount: moduleChapters.length,
      chapters: chapterSummaries,
      moduleQuiz: moduleQuiz ? quizSummary(moduleQuiz) : null,
      isUnlocked: moduleUnlocked,
      completionPercentage: moduleChapters.length === 0 ? 0 : round2((completed / moduleChapters.length) * 100),
    };
  });

  const final = courseQuizzes.find((q) => q.scope === 'final');
  const finalRecord = final ? learner?.finalAttempts.get(final.id) : undefined;
  const finalPassed = finalRecord?.passed ?? false;
  const finalExam: CatalogCourse['finalExam'] = final
    ? {
        id: String(final.id),
        title: final.name,
        type: 'final',
        // The content rule: only those who manage the course read its final exam in the catalog.
        questions: row.readsContent ? (tree.finalQuestions.get(final.id) ?? []) : [],
        // The final exam's pass mark is the course's minPassingScore (rules/pass-mark.ts: the
        // learning routes grade by it), not the quiz row's own minimumScore.
        minimumScore: passMarkOf(final, row),
        attempts: finalRecord?.attempts ?? 0,
        maxAttempts: final.maxAttempts,
        isPassed: finalPassed,
        questionCount: final.questionCount,
      }
    : {
        id: '',
        title: '',
        type: 'final',
        questions: [],
        minimumScore: row.minPassingScore,
        attempts: 0,
        maxAttempts: 0,
        isPassed: false,
        questionCount: 0,
      };

  const { totalProgress, status, certificate } = learnerStanding({
    enrolledChapters: learner?.completedChapters.get(row.id),
    chapterCount: row.chapterCount,
    hasFinal: final !== undefined,
    finalAttempts: finalRecord?.attempts ?? 0,
    finalPassed,
    certified: learner?.certificates.has(row.id) ?? false,
  });

  const startDate = toIso(row.startDate ?? row.createdAt);
  const course: CatalogCourse = {
    id: String(row.id),
    name: row.name,
    code: row.courseCode,
    description: row.description,
    instructor: row.instructor,
    startDate,
    // No end: the course runs on (contracts' OPEN_ENDED_END_DATE), never "ended at its start".
    endDate: row.endDate ? toIso(row.endDate) : OPEN_ENDED_END_DATE,
    enrollmentType: row.enrollmentType,
    enrollmentCode: row.enrollmentCode ?? '',
    isPurchasable: row.isPurchasable,
    price: Number(row.price),
    priceNonMember: row.priceNonMember === null ? null : Number(row.priceNonMember),
    priceMahasiswa: row.priceMahasiswa === null ? null : Number(row.priceMahasiswa),
    currency: row.currency,
    previewMode: row.previewMode,
    eventCode: row.eventCode,
    nilaiKum: row.nilaiKum,
    categoryId: row.categoryId,
    category: categoryOf(row.categoryId, row.categoryCode, row.categoryName),
    moduleCount: row.moduleCount,
    moduleSummaries: moduleSummaries.map((m) => ({ id: m.id, title: m.title, order: m.order, chapterCount: m.chapterCount })),
    modules: moduleSummaries,
    ...passThroughCourseFields(row),
    finalExam,
    certificate,
    minPassingScore: row.minPassingScore,
    totalProgress,
    status,
    studentCount: row.studentCount,
  };
  if (row.coverPicture) course.thumbnail = row.coverPicture;
  return course;
}
