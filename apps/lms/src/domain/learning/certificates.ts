import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';

/**
 * Issues the learner's certificate for the course if it is earned and not issued yet: every
 * chapter completed (a course has at least one) and the final exam, if the course has one,
 * passed (the catalog's certificate rule). One statement: the unique index
 * certificates_user_course_key with ON CONFLICT DO NOTHING makes concurrent callers (20 final
 * submissions at once) issue exactly one. Returns the new certificate's code, or null.
 * The same rule, for display, is catalog/learner-status.ts's `finishedCourse`: a change to what
 * earns a certificate changes both (here in SQL, so the check and the insert are one statement).
 */
export async function issueCertificateIfEarned(db: Db, userId: string, courseId: number, at: Date): Promise<string | null> {
  const { rows } = await db.execute(sql`
    insert into certificates (user_id, course_id, kum, issued_at)
    select ${userId}, c.id, c.nilai_kum, ${at.toISOString()}::timestamptz from courses c
    where c.id = ${courseId}
      and exists (select 1 from enrollments e where e.user_id = ${userId} and e.course_id = c.id)
      and exists (select 1 from chapters ch where ch.course_id = c.id)
      and not exists (
        select 1 from chapters ch where ch.course_id = c.id
          and not exists (select 1 from chapter_completions cc where cc.user_id = ${userId} and cc.chapter_id = ch.id))
      and not exists (
        select 1 from quizzes f where f.course_id = c.id and f.scope = 'final'
          and not exists (select 1 from quiz_attempts qa where qa.quiz_id = f.id and qa.user_id = ${userId} and qa.passed))
    on conflict (user_id, course_id) do nothing
    returning code`);
  return (rows[0] as { code: string } | undefined)?.code ?? null;
}

export interface Certificate {
  code: string;
  courseId: number;
  courseName: string;
  kum: number | null;
  issuedAt: Date;
  memberName: string;
  membershipId: string | null;
  institutionName: string | null;
}

const columns = sql`k.code, k.course_id as "courseId", c.name as "courseName", k.kum::float8 as kum, k.issued_at as "issuedAt",
  u.name as "memberName", u.membership_id as "membershipId", i.name as "institutionName"`;
const from = sql`certificates k join courses c on c.id = k.course_id join users u on u.id = k.user_id left join institutions i on i.id = c.institution_id`;

function toCertificate(row: Record<string, unknown>): Certificate {
  return { ...(row as unknown as Certificate), issuedAt: new Date(row.issuedAt as string | Date) };
}

/** The learner's own certificates, newest first. */
export async function listCertificates(db: Db, userId: string): Promise<Certificate[]> {
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.user_id = ${userId} order by k.issued_at desc, k.id desc`);
  return rows.map(toCertificate);
}

/** The learner's certificate of one course (for the printable page), or null. */
export async function findOwnCertificate(db: Db, userId: string, courseId: number): Promise<Certificate | null> {
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.user_id = ${userId} and k.course_id = ${courseId}`);
  return rows[0] ? toCertificate(rows[0]) : null;
}

/** Codes are 32 lowercase hex digits (a UUID without dashes): anything else is not looked up at all. */
export const CERTIFICATE_CODE = /^[0-9a-f]{32}$/;

/**
 * The certificate a verification code names, or null. One lookup by the unique index whatever the
 * code: a forged code costs the same as a real one, and 122 random bits are not guessable.
 */
export async function findCertificateByCode(db: Db, code: string): Promise<Certificate | null> {
  if (!CERTIFICATE_CODE.test(code)) return null;
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.code = ${code}`);
  return rows[0] ? toCertificate(rows[0]) : null;
}
