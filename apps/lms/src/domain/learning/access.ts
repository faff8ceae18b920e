import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ForbiddenError } from '../../errors.js';
import type { CourseProgress } from '../rules/unlock.js';

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
    readonly step: { kind: 'chapter' | 'quiz' | 'pre_test'; name: string } | null,
  ) {
    super(message);
  }
}

/** The 403 for a locked part, saying what opens it. */
export function lockedError(what: string, progress: CourseProgress): LockedError {
  const step = progress.state.nextStep;
  const wait =
    step === null
      ? ''
      : step.kind === 'quiz' && step.id === progress.tree.preTestQuizId
        ? `: take the pre-test "${progress.names.quiz.get(step.id)}" (id ${step.id}) first`
        : step.kind === 'chapter'
          ? `: complete the chapter "${progress.names.chapter.get(step.id)}" (id ${step.id}) first`
          : `: pass the quiz "${progress.names.quiz.get(step.id)}" (id ${step.id}) first`;
  const name = step === null ? '' : ((step.kind === 'chapter' ? progress.names.chapter : progress.names.quiz).get(step.id) ?? '');
  const kind = step?.kind === 'quiz' && step.id === progress.tree.preTestQuizId ? 'pre_test' : step?.kind;
  return new LockedError(`This ${what} is locked${wait}`, step === null || kind === undefined ? null : { kind, name });
}
