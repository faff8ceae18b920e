import { courses, type Db, enrollments, type UserRole } from '@lms/db';
import { and, eq, or, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { coursesManagedBy } from '../rules/course-managers.js';
import { buyerVisible } from '../rules/buyer-visible.js';

/** Who looks at the catalog, as far as the catalog cares: how they authenticated and who they are. */
export interface CatalogViewer {
  kind: 'api-key' | 'session';
  userId: string;
  role: UserRole;
}

/**
 * A viewer as SQL that decides visibility sees it: the id may be a placeholder (a prepared
 * statement serves every viewer of one kind and role, the id is its value) or a real id.
 */
export type ViewerInSql = Omit<CatalogViewer, 'userId'> & { userId: string | SQLWrapper };

/**
 * Which courses the list shows a viewer. API keys: buyer-visible only (whatever `public` says);
 * a teacher's session: the teacher's own courses, drafts included; an admin's session: the
 * courses of the admin's institution, drafts included, and every other buyer-visible course; a
 * super_admin's session: everything; a student's session: buyer-visible. Undefined means no
 * restriction. Staff see drafts of the courses they manage only (rules/course-managers.ts).
 */
export function listVisibility(viewer: ViewerInSql): SQL | undefined {
  if (viewer.kind === 'api-key') return buyerVisible;
  switch (viewer.role) {
    case 'super_admin':
      return undefined;
    case 'admin':
      return or(buyerVisible, coursesManagedBy(viewer));
    case 'teacher':
      return coursesManagedBy(viewer);
    default:
      return buyerVisible;
  }
}

/**
 * Whether a person may open a course's pages at all: the catalog shows it to them (listVisibility),
 * or they are enrolled in it (a learner keeps a course that was unpublished since).
 */
export async function mayOpenCourse(db: Db, viewer: CatalogViewer, courseId: number): Promise<boolean> {
  const shown = listVisibility(viewer) ?? sql`true`;
  const [row] = await db
    .select({
      open: sql<boolean>`(${shown} or exists (select 1 from ${enrollments} where ${and(
        eq(enrollments.courseId, courses.id),
        eq(enrollments.userId, viewer.userId),
      )}))`,
    })
    .from(courses)
    .where(eq(courses.id, courseId));
  return row?.open ?? false;
}

/** The learner whose progress the catalog shows: the session user; API keys have none. */
export function learnerOf(viewer: CatalogViewer): string | null {
  return viewer.kind === 'session' ? viewer.userId : null;
}

/**
 * The detail page of a course that is not buyer-visible is shown only to its owner and to a
 * super_admin, both by session: an API key always gets the buyer-visible dataset, as on the list.
 */
export function mayViewHiddenCourse(viewer: CatalogViewer, teacherId: string): boolean {
  return viewer.kind === 'session' && (viewer.userId === teacherId || viewer.role === 'super_admin');
}

/** `%`, `_` and `\` in user text become literal characters of a LIKE pattern (escape character `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function toIso(date: Date): string {
  return date.toISOString();
}
