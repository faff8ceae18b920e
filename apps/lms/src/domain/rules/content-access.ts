import type { UserRole } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { managesCourse } from './course-managers.js';

// Who reads a course's content. Chapter text and quiz questions are what a learner pays for, so
// the catalog gives them only to those the course is for; everyone else reads its outline
// (titles, order, counts, prices, KUM). Fields keep their types: a withheld chapter has
// `content: ""`, a withheld quiz `questions: []`. Every answer and page that carries content asks
// this module (docs/architecture.md, "Who reads what").

/**
 * - `author`: the owner teacher or a super_admin, by session: everything, answer keys included
 *   (the API specification gives answer keys to these two only).
 * - `manager`: an admin of the course's institution, by session: everything but answer keys.
 * - `learner`: enrolled in the course: the content of the chapters the unlock rule opens for them,
 *   the questions of the chapter and module quizzes they may take; never the final exam's
 *   questions (those appear only inside an open attempt).
 * - `outline`: everyone else (every API key, the owner's too; members not enrolled; other
 *   institutions' staff): no content and no questions, but the preview chapter (previewChapterSql).
 */
export type ContentAccess = 'author' | 'manager' | 'learner' | 'outline';

export interface ContentViewer {
  kind: 'api-key' | 'session';
  userId: string;
  role: UserRole;
  /** The person's institution (null: none); only an admin's is ever read. */
  institutionId: number | null;
}

export function contentAccessOf(
  viewer: ContentViewer,
  course: { teacherId: string; institutionId: number },
  { enrolled }: { enrolled: boolean },
): ContentAccess {
  // API-key answers are the same for every key (the catalog shares them between keys).
  if (viewer.kind !== 'session') return 'outline';
  if (viewer.userId === course.teacherId || viewer.role === 'super_admin') return 'author';
  if (managesCourse(viewer, course)) return 'manager';
  return enrolled ? 'learner' : 'outline';
}

/** Whether answers for this access may carry answer keys. */
export const readsAnswerKeys = (access: ContentAccess) => access === 'author';

/** Whether answers for this access carry every chapter's content and every quiz's questions (not the keys). */
export const readsAllContent = (access: ContentAccess) => access === 'author' || access === 'manager';

/**
 * The preview a course with `previewMode` on offers to everyone who may see the course: the text
 * of its first chapter in course order (the first module's first chapter), never a quiz's
 * questions. As SQL: whether chapter `chapter` is that chapter of course `course` (both column
 * references of the outer statement).
 */
export function isPreviewChapterSql(course: { id: SQL; previewMode: SQL }, chapter: SQL): SQL<boolean> {
  return sql<boolean>`(${course.previewMode} and ${chapter} = (
    select pc.id from chapters pc join modules pm on pm.id = pc.module_id
    where pc.course_id = ${course.id} order by pm.order_index, pm.id, pc.order_index, pc.id limit 1))`;
}

/**
 * What the unlock rule opens to a learner, as the ids the catalog's filtered tree reads: the
 * unlocked chapters (their text and their chapter quizzes) and the unlocked modules (their module
 * quizzes). The learning routes open the same parts (domain/learning/access.ts).
 */
export function openParts(state: {
  chapter: ReadonlyMap<number, { unlocked: boolean }>;
  module: ReadonlyMap<number, { unlocked: boolean }>;
}): { chapterIds: number[]; moduleIds: number[] } {
  const open = (parts: ReadonlyMap<number, { unlocked: boolean }>) => [...parts].filter(([, s]) => s.unlocked).map(([id]) => id);
  return { chapterIds: open(state.chapter), moduleIds: open(state.module) };
}
