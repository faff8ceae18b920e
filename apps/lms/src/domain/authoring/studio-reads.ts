import type { QuizOut } from '@lms/contracts';
import { chapters, courses, type Db, type UserRole, users } from '@lms/db';
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import { NotFoundError } from '../../errors.js';
import { type Author, type AuthoringContext, type CourseRow, findAuthoredCourse } from './authors.js';
import { exportCourse } from './document.js';
import { quizVersion } from './items.js';
import { type QuizScope, quizTargetOf } from './operations.js';

// What the course studio (pages/studio) reads besides the authoring operations: the teachers a
// new course may be given to, a chapter and a quiz as their editors open them, the chapters that
// show a picture, and whether a course is published. Typed selects over the schema; none of these
// is on a path the bench measures.

export interface TeacherChoice {
  id: string;
  name: string;
  institutionId: number;
}

/**
 * The active teachers a person may create a course for, by name (at most 500): a teacher only
 * themselves, an admin those of their own institution (while an active admin), a super_admin any.
 */
export async function teachersForNewCourse(db: Db, caller: { userId: string; role: UserRole }): Promise<TeacherChoice[]> {
  const whose =
    caller.role === 'teacher'
      ? eq(users.id, caller.userId)
      : caller.role === 'admin'
        ? sql`${users.institutionId} = (select institution_id from users where id = ${caller.userId} and role = 'admin' and is_active)`
        : undefined;
  const rows = await db
    .select({ id: users.id, name: users.name, institutionId: users.institutionId })
    .from(users)
    .where(and(eq(users.role, 'teacher'), eq(users.isActive, true), isNotNull(users.institutionId), whose))
    .orderBy(asc(users.name))
    .limit(500);
  return rows.flatMap(({ id, name, institutionId }) => (institutionId === null ? [] : [{ id, name, institutionId }]));
}

/** Whether a course is published now (a write to it then shows in the API-key catalog). */
export async function isCoursePublished(db: Db, courseId: number): Promise<boolean> {
  const [row] = await db.select({ isPublished: courses.isPublished }).from(courses).where(eq(courses.id, courseId));
  return row?.isPublished === true;
}

export interface EditedChapter {
  id: number;
  moduleId: number;
  name: string;
  content: string;
  /** The author's expected minutes, or null: estimated from the text. */
  expectedMinutes: number | null;
  version: number;
}

/** A chapter as its editor opens it, with its course, once the author's right on it is checked (404 when there is none). */
export async function chapterForEditor(db: Db, author: Author, chapterId: number): Promise<{ course: CourseRow; chapter: EditedChapter }> {
  const course = await findAuthoredCourse(db, author, { chapter: chapterId });
  const [chapter] = await db
    .select({
      id: chapters.id,
      moduleId: chapters.moduleId,
      name: chapters.name,
      content: chapters.content,
      expectedMinutes: chapters.expectedMinutes,
      version: chapters.version,
    })
    .from(chapters)
    .where(eq(chapters.id, chapterId));
  if (!chapter) throw new NotFoundError('Chapter not found');
  return { course, chapter };
}

/** The names of a course's chapters whose text contains `path` (a picture's), in outline order. */
export async function chaptersShowing(db: Db, courseId: number, path: string): Promise<string[]> {
  const rows = await db
    .select({ name: chapters.name })
    .from(chapters)
    .where(and(eq(chapters.courseId, courseId), sql`strpos(${chapters.content}, ${path}) > 0`))
    .orderBy(asc(chapters.orderIndex), asc(chapters.id));
  return rows.map((r) => r.name);
}

export interface EditedQuiz {
  course: CourseRow;
  /** The quiz there now, or null when there is none yet. */
  quiz: QuizOut | null;
  /** The name of the chapter or module it belongs to ('' for the final exam). */
  label: string;
  /** Its version (0 when there is no quiz yet). */
  version: number;
}

/** The quiz of a scope and an id as its editor opens it, once the author's right on its course is checked. */
export async function quizForEditor(db: Db, ctx: AuthoringContext, scope: QuizScope, id: number): Promise<EditedQuiz> {
  const course = await findAuthoredCourse(db, ctx.author, quizTargetOf(scope, id));
  const { document } = await exportCourse(db, ctx, course.id);
  let quiz: QuizOut | null = scope === 'final' ? document.finalExam : null;
  let label = '';
  for (const m of document.modules) {
    if (scope === 'module' && m.id === id) [quiz, label] = [m.quiz, m.name];
    for (const ch of m.chapters) if (scope === 'chapter' && ch.id === id) [quiz, label] = [ch.quiz, ch.name];
  }
  const version = quiz === null ? 0 : await quizVersion(db, quiz.id);
  return { course, quiz, label, version };
}
