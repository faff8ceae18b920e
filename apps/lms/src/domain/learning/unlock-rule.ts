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
}

export interface UnlockProgress {
  completedChapters: ReadonlySet<number>;
  /** Quizzes with a submitted attempt at or above their pass mark. */
  passedQuizzes: ReadonlySet<number>;
}

export interface UnlockState {
  module: Map<number, { unlocked: boolean; completedChapters: number }>;
  chapter: Map<number, { unlocked: boolean; completed: boolean }>;
  /** The first step of the course (in order) not done yet: what a locked part waits for. */
  nextStep: Step | null;
  /** Every chapter completed and every chapter and module quiz passed: the final exam opens. */
  finalUnlocked: boolean;
  allChaptersCompleted: boolean;
}

export type Step = { kind: 'chapter'; id: number } | { kind: 'quiz'; id: number };

/**
 * A chapter is "through" when completed and its chapter quiz (if any) passed; a module is
 * complete when all its chapters are through and its module quiz (if any) passed. The first
 * module is unlocked, each next one when the one before is unlocked and complete; in an unlocked
 * module the first chapter is unlocked, each next one when the one before is through. A completed
 * chapter and its module stay unlocked.
 */
export function computeUnlock(tree: UnlockTree, progress: UnlockProgress): UnlockState {
  const passed = (quizId: number | null | undefined) => quizId == null || progress.passedQuizzes.has(quizId);
  const done = (chapterId: number) => progress.completedChapters.has(chapterId);
  const state: UnlockState = { module: new Map(), chapter: new Map(), nextStep: null, finalUnlocked: false, allChaptersCompleted: true };
  let previousModuleThrough: boolean = true;
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
