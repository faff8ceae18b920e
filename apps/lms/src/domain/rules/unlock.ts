import { type chapters, type Db, type quizzes, type RawSelect, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';

/**
 * The unlock rule (contracts UNLOCK_RULE), as one pure function: the catalog shows what it
 * computes and the learning routes enforce the same answer, so a learner can never open what the
 * catalog shows locked, nor be refused what it shows open.
 */

export interface UnlockTree {
  /** In course order; chapters in module order. */
  modules: { id: number; chapters: { id: number }[]; quizId: number | null }[];
  /** chapterId → its chapter quiz. */
  chapterQuiz: Map<number, number>;
  finalQuizId: number | null;
  /** The course's pre-test (quizzes.evidence_role), or null: chapters open only after one submitted attempt of it. */
  preTestQuizId?: number | null;
}

export interface UnlockProgress {
  completedChapters: ReadonlySet<number>;
  /** Quizzes with a submitted attempt at or above their pass mark. */
  passedQuizzes: ReadonlySet<number>;
  /** Quizzes with a submitted attempt, passed or not (the pre-test needs one, and no pass mark). */
  attemptedQuizzes?: ReadonlySet<number>;
}

export interface UnlockState {
  module: Map<number, { unlocked: boolean; completedChapters: number }>;
  chapter: Map<number, { unlocked: boolean; completed: boolean }>;
  /** The first step of the course (in order) not done yet: what a locked part waits for. */
  nextStep: Step | null;
  /** Every chapter completed and every chapter and module quiz passed: the final exam opens. */
  finalUnlocked: boolean;
  allChaptersCompleted: boolean;
  /** The course has a pre-test the learner has not taken: nothing else opens, it is the next step. */
  preTestPending: boolean;
}

export type Step = { kind: 'chapter'; id: number } | { kind: 'quiz'; id: number };

/**
 * A chapter is "through" when completed and its chapter quiz (if any) passed; a module is
 * complete when all its chapters are through and its module quiz (if any) passed. The first
 * module is unlocked, each next one when the one before is unlocked and complete; in an unlocked
 * module the first chapter is unlocked, each next one when the one before is through. A completed
 * chapter and its module stay unlocked. A course with a pre-test opens nothing but the pre-test
 * before one submitted attempt of it; after it, the pre-test counts as passed whatever its score.
 */
export function computeUnlock(tree: UnlockTree, progress: UnlockProgress): UnlockState {
  const pre = tree.preTestQuizId ?? null;
  const preTaken = pre !== null && (progress.attemptedQuizzes?.has(pre) ?? false);
  const passed = (quizId: number | null | undefined) =>
    quizId == null || progress.passedQuizzes.has(quizId) || (quizId === pre && preTaken);
  const done = (chapterId: number) => progress.completedChapters.has(chapterId);
  const state: UnlockState = {
    module: new Map(),
    chapter: new Map(),
    nextStep: null,
    finalUnlocked: false,
    allChaptersCompleted: true,
    preTestPending: pre !== null && !preTaken,
  };
  if (state.preTestPending && pre !== null) state.nextStep = { kind: 'quiz', id: pre };
  let previousModuleThrough: boolean = !state.preTestPending;
  for (const m of tree.modules) {
    const completed = m.chapters.filter((c) => done(c.id)).length;
    const moduleUnlocked: boolean = previousModuleThrough || completed > 0;
    state.module.set(m.id, { unlocked: moduleUnlocked, completedChapters: completed });
    let previousChapterThrough = true;
    for (const c of m.chapters) {
      state.chapter.set(c.id, { unlocked: done(c.id) || (moduleUnlocked && previousChapterThrough), completed: done(c.id) });
      const quizId = tree.chapterQuiz.get(c.id);
      if (!done(c.id)) state.allChaptersCompleted = false;
      // biome-ignore lint/style/noNonNullAssertion: passed() is false only for an existing quiz, so quizId is set.
      state.nextStep ??= !done(c.id) ? { kind: 'chapter', id: c.id } : !passed(quizId) ? { kind: 'quiz', id: quizId! } : null;
      previousChapterThrough = done(c.id) && passed(quizId);
    }
    // biome-ignore lint/style/noNonNullAssertion: passed() is false only for an existing quiz, so quizId is set.
    if (!passed(m.quizId)) state.nextStep ??= { kind: 'quiz', id: m.quizId! };
    const through: boolean = m.chapters.every((c) => done(c.id) && passed(tree.chapterQuiz.get(c.id))) && passed(m.quizId);
    previousModuleThrough = moduleUnlocked && through;
  }
  // The final exam is the part after the last module: it opens when nothing before it is left.
  state.finalUnlocked = state.nextStep === null;
  return state;
}

// The rule's inputs as the database holds them: one statement reads a course's tree and one
// learner's records, and the rule above decides. Catalog and learning both read progress here.

export interface CourseProgress {
  tree: UnlockTree;
  state: UnlockState;
  /** chapterId → name, quizId → name: to say what a locked part waits for. */
  names: { chapter: Map<number, string>; quiz: Map<number, string> };
}

/** The course's tree and the learner's records as JSON arrays (raw: one statement on the learning path's hot read). */
type TreeRow = {
  modules: { id: number; quizId: number | null }[];
  chapters: Pick<RawSelect<typeof chapters>, 'id' | 'moduleId' | 'name'>[];
  quizzes: Pick<RawSelect<typeof quizzes>, 'id' | 'scope' | 'chapterId' | 'name'>[];
  completed: number[];
  passed: number[];
  attempted: number[];
  preTestQuizId: number | null;
};

/**
 * A course's tree and this learner's records, in one statement, with the unlock rule applied.
 * The order is the catalog's (module order, then chapter order, then id), which the rule follows.
 */
export async function loadCourseProgress(db: Db, userId: string, courseId: number): Promise<CourseProgress> {
  const [row] = await typedRows<TreeRow>(
    db,
    sql`
    select
      coalesce((select json_agg(json_build_object('id', m.id,
          'quizId', (select min(q.id) from quizzes q where q.module_id = m.id and q.scope = 'module')) order by m.order_index, m.id)
        from modules m where m.course_id = ${courseId}), '[]'::json) as modules,
      coalesce((select json_agg(json_build_object('id', ch.id, 'moduleId', ch.module_id, 'name', ch.name) order by ch.module_id, ch.order_index, ch.id)
        from chapters ch where ch.course_id = ${courseId}), '[]'::json) as chapters,
      coalesce((select json_agg(json_build_object('id', q.id, 'scope', q.scope, 'chapterId', q.chapter_id, 'name', q.name) order by q.id)
        from quizzes q where q.course_id = ${courseId}), '[]'::json) as quizzes,
      coalesce((select json_agg(cc.chapter_id) from chapter_completions cc where cc.user_id = ${userId} and cc.course_id = ${courseId}), '[]'::json) as completed,
      coalesce((select json_agg(distinct qa.quiz_id) from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
        where qa.user_id = ${userId} and q.course_id = ${courseId} and qa.passed), '[]'::json) as passed,
      coalesce((select json_agg(distinct qa.quiz_id) from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
        where qa.user_id = ${userId} and q.course_id = ${courseId} and q.evidence_role = 'pre_test' and qa.score is not null), '[]'::json) as attempted,
      (select q.id from quizzes q where q.course_id = ${courseId} and q.evidence_role = 'pre_test') as "preTestQuizId"`,
  );
  const chaptersByModule = new Map<number, { id: number }[]>();
  for (const c of row.chapters) {
    const list = chaptersByModule.get(c.moduleId) ?? [];
    list.push({ id: c.id });
    chaptersByModule.set(c.moduleId, list);
  }
  // Chapter quizzes: the first one of each chapter (the catalog shows the first too).
  const chapterQuiz = new Map<number, number>();
  for (const q of row.quizzes)
    if (q.scope === 'chapter' && q.chapterId !== null && !chapterQuiz.has(q.chapterId)) chapterQuiz.set(q.chapterId, q.id);
  const tree: UnlockTree = {
    modules: row.modules.map((m) => ({ id: m.id, quizId: m.quizId, chapters: chaptersByModule.get(m.id) ?? [] })),
    chapterQuiz,
    finalQuizId: row.quizzes.find((q) => q.scope === 'final')?.id ?? null,
    preTestQuizId: row.preTestQuizId,
  };
  const state = computeUnlock(tree, {
    completedChapters: new Set(row.completed),
    passedQuizzes: new Set(row.passed),
    attemptedQuizzes: new Set(row.attempted),
  });
  return {
    tree,
    state,
    names: { chapter: new Map(row.chapters.map((c) => [c.id, c.name])), quiz: new Map(row.quizzes.map((q) => [q.id, q.name])) },
  };
}
