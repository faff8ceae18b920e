import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';

// Who a learner turns to about a course (no "contact them" without a name): its owner teacher,
// and its institution with one of the institution's admins (the first active one), who can grant
// quiz attempts and set the transfer account. Inactive accounts are left out.

export interface CoursePerson {
  name: string;
  email: string;
}

export interface CourseContacts {
  teacher: CoursePerson | null;
  institution: string;
  admin: CoursePerson | null;
}

/** The course's contacts, or null when there is no such course. */
export async function courseContacts(db: Db, courseId: number): Promise<CourseContacts | null> {
  const [row] = await typedRows<{
    institution: string;
    teacherName: string | null;
    teacherEmail: string | null;
    adminName: string | null;
    adminEmail: string | null;
  }>(
    db,
    sql`select i.name as institution, t.name as "teacherName", t.email as "teacherEmail", a.name as "adminName", a.email as "adminEmail"
        from courses c
        join institutions i on i.id = c.institution_id
        left join users t on t.id = c.teacher_id and t.is_active
        left join lateral (select u.name, u.email from users u
          where u.institution_id = c.institution_id and u.role = 'admin' and u.is_active
          order by u.created_at, u.id limit 1) a on true
        where c.id = ${courseId}`,
  );
  if (!row) return null;
  return {
    institution: row.institution,
    teacher: row.teacherName !== null && row.teacherEmail !== null ? { name: row.teacherName, email: row.teacherEmail } : null,
    admin: row.adminName !== null && row.adminEmail !== null ? { name: row.adminName, email: row.adminEmail } : null,
  };
}
