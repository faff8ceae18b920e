import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ForbiddenError } from '../../errors.js';
import { computeUnlock, type UnlockState, type UnlockTree } from './unlock-rule.js';

/** A learner reaches a course's chapters and quizzes only with an enrollment row. */
export async function isEnrolled(db: Db, userId: string, courseId: number): Promise<boolean> {
  const { rows } = await db.execute(sql`select 1 from enrollments where user_id = ${userId} and course_id = ${courseId}`);
  return rows.length > 0;
}

export const NOT_ENROLLED = 'You are not enrolled in this course: enrol first';

/** 403: the learner has no enrollment in the course of the chapter or quiz. */
export class NotEnrolledError extends ForbiddenError {
  constructor() {
    super(NOT_ENROLLED);
  }
}

/** 403: the unlock rule keeps this chapter or quiz closed; `step` is what the learner must do first. */
export class LockedError extends ForbiddenError {
  constructor(
    message: string,
    readonly step: { kind: 'chapter' | 'quiz'; name: string } | null,
  ) {
    super(message);
  }
}

export interface CourseProgress {
  tree: UnlockTree;
  state: UnlockState;
  /** chapterId → name, quizId → name: to say what a locked part waits for. */
  names: { chapter: Map<number, string>; quiz: Map<number, string> };
}

interface TreeRow {
  modules: { id: number; quizId: number | null }[];
  chapters: { id: number; moduleId: number; name: string }[];
  quizzes: { id: number; scope: 'chapter' | 'module' | 'final'; chapterId: number | null; name: string }[];
  completed: number[];
  passed: number[];
}

/**
 * A course's tree and this learner's records, in one statement, with the unlock rule applied.
 * The order is the catalog's (module order, then chapter order, then id), which the rule follows.
 */
export async function loadCourseProgress(db: Db, userId: string, courseId: number): Promise<CourseProgress> {
  const { rows } = await db.execute(sql`
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
        where qa.user_id = ${userId} and q.course_id = ${courseId} and qa.passed), '[]'::json) as passed`);
  const row = rows[0] as unknown as TreeRow;
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
  };
  const state = computeUnlock(tree, { completedChapters: new Set(row.completed), passedQuizzes: new Set(row.passed) });
  return {
    tree,
    state,
    names: { chapter: new Map(row.chapters.map((c) => [c.id, c.name])), quiz: new Map(row.quizzes.map((q) => [q.id, q.name])) },
  };
}

/** The 403 for a locked part, saying what opens it. */
export function lockedError(what: string, progress: CourseProgress): LockedError {
  const step = progress.state.nextStep;
  const wait =
    step === null
      ? ''
      : step.kind === 'chapter'
        ? `: complete the chapter "${progress.names.chapter.get(step.id)}" (id ${step.id}) first`
        : `: pass the quiz "${progress.names.quiz.get(step.id)}" (id ${step.id}) first`;
  const name = step === null ? '' : ((step.kind === 'chapter' ? progress.names.chapter : progress.names.quiz).get(step.id) ?? '');
  return new LockedError(`This ${what} is locked${wait}`, step === null ? null : { kind: step.kind, name });
}
