import type { PublicCourse } from '@lms/contracts';
import { categories, courses, type Db, enrollments, users } from '@lms/db';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { buildPublicCourses, courseSummaryColumns } from './catalog/course-summaries.js';

/** What the dashboard pages say about the signed-in person. */
export interface DashboardUser {
  name: string;
  email: string;
  tier: string | null;
  membershipId: string | null;
  role: 'student' | 'teacher' | 'admin' | 'super_admin';
}

export async function findDashboardUser(db: Db, userId: string): Promise<DashboardUser | null> {
  const [user] = await db
    .select({ name: users.name, email: users.email, tier: users.tier, membershipId: users.membershipId, role: users.role })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return user ?? null;
}

export interface LearnerOverview {
  courses: PublicCourse[];
  completed: number;
  certificates: number;
  /** KUM/SKPK points of the courses whose certificate was issued. */
  kumEarned: number;
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
  let kumEarned = 0;
  for (const course of list) {
    if (course.status === 'completed') completed += 1;
    if (course.certificate.isGenerated) {
      certificates += 1;
      kumEarned += course.nilaiKum ?? 0;
    }
  }
  return { courses: list, completed, certificates, kumEarned };
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

/** Every category, by name, for the catalog's filter. */
export async function listCategories(db: Db): Promise<{ id: number; code: string; name: string }[]> {
  return db
    .select({ id: categories.id, code: categories.code, name: categories.name })
    .from(categories)
    .orderBy(asc(sql`lower(${categories.name})`), asc(categories.id));
}
