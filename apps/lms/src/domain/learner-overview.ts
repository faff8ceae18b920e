import type { PublicCourse } from '@lms/contracts';
import { categories, courses, type Db, enrollments } from '@lms/db';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { buildPublicCourses } from './catalog/course-summaries.js';
import { courseSummaryColumns } from './catalog/course-summary-statements.js';

export interface LearnerOverview {
  courses: PublicCourse[];
  completed: number;
  certificates: number;
}

/**
 * The courses a learner is enrolled in, by name, as catalog summaries with the learner's progress
 * (the catalog's own builder: status, certificate, unlock state), and the totals of the page.
 */
export async function findLearnerOverview(db: Db, userId: string): Promise<LearnerOverview> {
  const rows = await db
    .select(courseSummaryColumns)
    .from(enrollments)
    .innerJoin(courses, eq(courses.id, enrollments.courseId))
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(eq(enrollments.userId, userId))
    .orderBy(asc(sql`lower(${courses.name})`), asc(courses.id));
  const list = await buildPublicCourses(db, rows, userId);
  let completed = 0;
  let certificates = 0;
  for (const course of list) {
    if (course.status === 'completed') completed += 1;
    if (course.certificate.isGenerated) certificates += 1;
  }
  return { courses: list, completed, certificates };
}

/** Which of the given courses are drafts (not published): the catalog summary does not say. */
export async function findDraftCourseIds(db: Db, courseIds: number[]): Promise<Set<number>> {
  if (courseIds.length === 0) return new Set();
  const rows = await db
    .select({ id: courses.id })
    .from(courses)
    .where(and(inArray(courses.id, courseIds), eq(courses.isPublished, false)));
  return new Set(rows.map((r) => r.id));
}
