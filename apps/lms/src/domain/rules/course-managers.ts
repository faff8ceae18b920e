import { courses, type UserRole, users } from '@lms/db';
import { eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';

// Who manages a course: its owner teacher, an admin of its institution, a super_admin. They
// decide its enrolment requests, hand out its enrolment code, see its drafts in the lists and
// read its whole content. The rule in its two forms: SQL, for statements that decide per row,
// and JS, for code that has the course row and the person's institution at hand. A test holds
// the two against each other (test/domain/rules.test.ts).

/** A person as the rule sees them; the id may be a placeholder of a prepared statement. */
export interface Manager {
  userId: string | SQLWrapper;
  role: UserRole;
}

/**
 * The courses this person manages, as a condition over `courses`: undefined for a super_admin
 * (every course), `false` for a student.
 */
export function coursesManagedBy(person: Manager): SQL | undefined {
  switch (person.role) {
    case 'super_admin':
      return undefined;
    case 'admin':
      return sql`${courses.institutionId} = (select ${users.institutionId} from ${users} where ${users.id} = ${person.userId})`;
    case 'teacher':
      return eq(courses.teacherId, person.userId);
    default:
      return sql`false`;
  }
}

/** The same rule as a boolean column (never null: an admin without an institution manages nothing). */
export function managesCourseColumn(person: Manager): SQL<boolean> {
  const managed = coursesManagedBy(person);
  return managed === undefined ? sql<boolean>`true` : sql<boolean>`coalesce(${managed}, false)`;
}

/** The same rule over a loaded course, for a person whose institution is known (null: none). */
export function managesCourse(
  person: { userId: string; role: UserRole; institutionId: number | null },
  course: { teacherId: string; institutionId: number },
): boolean {
  switch (person.role) {
    case 'super_admin':
      return true;
    case 'admin':
      return person.institutionId !== null && person.institutionId === course.institutionId;
    case 'teacher':
      return person.userId === course.teacherId;
    default:
      return false;
  }
}
