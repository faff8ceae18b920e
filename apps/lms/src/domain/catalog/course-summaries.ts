import {
  type ChapterSummary,
  type ModuleSummary,
  OPEN_ENDED_END_DATE,
  type PublicCourse,
  type Question,
  type QuizSummary,
} from '@lms/contracts';
import type { Db } from '@lms/db';
import { categoryOf, groupBy } from '../rules/public-fields.js';
import { learnerStanding, round2 } from '../rules/learner-status.js';
import { passMarkOf } from '../rules/pass-mark.js';
import { toIso } from './viewer.js';
import { computeUnlock } from '../rules/unlock.js';
import { passThroughCourseFields } from './course-fields.js';
import { type CourseSummaryRow, type CourseTree, loadTreeRows, summaryTreesStatement, type TreeRow } from './course-summary-statements.js';

/**
 * A catalog summary as the domain hands it over: the contract's PublicCourse, and the number of
 * questions of the final exam, which the pages show to people who may not read the questions
 * themselves. The JSON answers do not carry it: the contract's FinalExam declares no such field,
 * and the compiled serializers write only declared fields.
 */
export type CatalogCourse = PublicCourse & { finalExam: PublicCourse['finalExam'] & { questionCount: number } };

interface LearnerRecords {
  completedChapters: Map<number, number>;
  completedChapterIds: Set<number>;
  finalAttempts: Map<number, { attempts: number; passed: boolean }>;
  /** Chapter and module quizzes the learner passed (they gate what follows: the unlock rule). */
  passedQuizIds: Set<number>;
  certificates: Set<number>;
  /** Courses whose pre-test the learner has taken; courses whose accreditation asks for evidence. */
  preTestTaken: Set<number>;
  evidenceRequired: Set<number>;
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

/** The learner's records on the courses, from the learner columns of their tree rows (a statement with them: a learner's). */
function learnerRecords(rows: TreeRow[]): LearnerRecords {
  const records: LearnerRecords = {
    completedChapters: new Map(),
    completedChapterIds: new Set(),
    finalAttempts: new Map(),
    passedQuizIds: new Set(),
    certificates: new Set(),
    preTestTaken: new Set(),
    evidenceRequired: new Set(),
  };
  for (const row of rows) {
    if (row.completedChapters != null) records.completedChapters.set(row.courseId, row.completedChapters);
    for (const id of row.completedChapterIds ?? []) records.completedChapterIds.add(id);
    for (const a of row.finalAttempts ?? []) records.finalAttempts.set(a.quizId, { attempts: a.attempts, passed: a.passed });
    for (const id of row.passedQuizIds ?? []) records.passedQuizIds.add(id);
    if (row.certified) records.certificates.add(row.courseId);
    if (row.preTestTaken) records.preTestTaken.add(row.courseId);
    if (row.evidenceRequired) records.evidenceRequired.add(row.courseId);
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
  const preTest = courseQuizzes.find((q) => q.evidenceRole === 'pre_test')?.id;
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
      preTestQuizId: preTest ?? null,
    },
    {
      completedChapters: learner?.completedChapterIds ?? new Set(),
      passedQuizzes: learner?.passedQuizIds ?? new Set(),
      attemptedQuizzes: preTest !== undefined && learner?.preTestTaken.has(row.id) ? new Set([preTest]) : new Set(),
    },
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
    evidenceRequired: learner?.evidenceRequired.has(row.id) ?? false,
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
