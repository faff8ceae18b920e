import { courses } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { coursesManagedBy } from '../rules/course-managers.js';
import type { ViewerInSql } from './viewer.js';

// A `code` course's enrolment code is the key to POST /api/learning/courses/{id}/enrollment: the
// catalog keeps the spec's `enrollmentCode` field (a string) but fills it only for those who manage
// the course, who hand the code out. Everyone else, every API key included, reads ''.

/** The field as everyone but a course's managers reads it. */
export const NO_ENROLMENT_CODE: SQL<string> = sql<string>`''`;

/**
 * The `enrollmentCode` column of a catalog summary as this viewer may read it: the course's code
 * for a session of someone who manages the course (its teacher, an admin of its institution, a
 * super_admin: rules/course-managers.ts, who also decide its enrolment requests), '' otherwise.
 * API keys always read '' (also the owner's: their answers are shared by every key, see the
 * catalog routes). Decided in SQL, per row, so a list that mixes courses gets each one right.
 */
export function enrolmentCodeFor(viewer: ViewerInSql): SQL<string> {
  if (viewer.kind !== 'session') return NO_ENROLMENT_CODE;
  const managed = coursesManagedBy(viewer);
  const code = sql`coalesce(${courses.enrollmentCode}, '')`;
  return managed === undefined ? sql<string>`${code}` : sql<string>`(case when ${managed} then ${code} else '' end)`;
}
