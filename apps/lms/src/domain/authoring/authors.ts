import { STAFF_ROLES } from '@lms/contracts';
import { type courses, type Db, type RawRow, typedRows, type UserRole } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { isBuyerVisible } from '../rules/buyer-visible.js';

/**
 * Who writes a course: a person by session, or a partner's system by a bearer JWT forwarded by
 * the gateway (its issuer, the token's `sub` naming the calling system, and the token's `jti`).
 */
export type Author =
  | { kind: 'session'; userId: string; role: UserRole }
  | { kind: 'partner'; issuer: string; subject: string; tokenId: string };

/**
 * The roles that may author by session (mayAuthorSql says which courses): a student never does,
 * so the routes refuse one before reading what they send.
 */
export const AUTHOR_ROLES = STAFF_ROLES;

/** What every authoring write is given: who writes, when (the app's clock), and the request's id for the history. */
export interface AuthoringContext {
  author: Author;
  now: Date;
  requestId: string | null;
}

/**
 * A course row as authoring reads it: `select c.*` through `db.execute` (snake_case columns, raw
 * values), typed from the schema. Raw because the right to author is one SQL expression
 * (mayAuthorSql) read in the same statement, and the lock is `for update`.
 */
export type CourseRow = RawRow<typeof courses>;

/**
 * Who may author a course (docs/architecture.md, "Authoring"), as SQL over the course row `c`: its owner teacher, an
 * active admin of its institution, a super_admin (by session); a partner bound to its institution
 * (`lms-admin partner bind`). Anyone else may not (students never). Reading a course's answer
 * keys is narrower (owner and super_admin only, the spec's rule in domain/rules/content-access.ts):
 * an institution admin may author a course without being shown its keys through the catalog.
 */
export function mayAuthorSql(author: Author): SQL {
  if (author.kind === 'partner') {
    return sql`exists (select 1 from partner_institutions pi join partners p on p.id = pi.partner_id
      where p.issuer = ${author.issuer} and p.is_active and pi.institution_id = c.institution_id)`;
  }
  switch (author.role) {
    case 'super_admin':
      return sql`true`;
    case 'admin':
      return sql`exists (select 1 from users u where u.id = ${author.userId} and u.role = 'admin' and u.is_active
        and u.institution_id = c.institution_id)`;
    case 'teacher':
      return sql`c.teacher_id = ${author.userId}`;
    default:
      return sql`false`;
  }
}

/** What an authoring operation is about: a course, or a module, chapter or quiz of one. */
export type AuthoringTarget = { course: number } | { module: number } | { chapter: number } | { quiz: number };

/**
 * The course of `target` (a course, or the course of a module, chapter or quiz), when the author
 * may write it. Refused: 404 when there is no such thing, or its course is not buyer-visible (a
 * draft is not revealed to those who may not write it); 403 when the course is in the catalog
 * anyway. Reads (export, history, checklist) start here.
 */
export async function findAuthoredCourse(db: Db, author: Author, target: AuthoringTarget): Promise<CourseRow> {
  const courseId =
    'course' in target
      ? sql`${target.course}`
      : 'module' in target
        ? sql`(select course_id from modules where id = ${target.module})`
        : 'chapter' in target
          ? sql`(select course_id from chapters where id = ${target.chapter})`
          : sql`(select course_id from quizzes where id = ${target.quiz})`;
  const [row] = await typedRows<CourseRow & { may_author: boolean }>(
    db,
    sql`
    select c.*, ${mayAuthorSql(author)} as may_author from courses c where c.id = ${courseId}`,
  );
  const what = Object.keys(target)[0];
  if (!row) throw new NotFoundError(`${capitalised(what)} not found`);
  if (!row.may_author) {
    if (isBuyerVisible({ isPublished: row.is_published, eventCode: row.event_code })) {
      throw new ForbiddenError(`You may not author course ${row.id}`);
    }
    throw new NotFoundError(`${capitalised(what)} not found`);
  }
  return row;
}

/**
 * findAuthoredCourse, then the course row locked FOR UPDATE for the rest of the transaction (and
 * read again under the lock). Every authoring write starts here, so writes to one course are
 * serialised: ordering, limits and the checks before a delete cannot race. Locked only once the
 * right is known, so nobody can hold locks on courses they may not write.
 */
export async function lockAuthoredCourse(tx: Db, author: Author, target: AuthoringTarget): Promise<CourseRow> {
  const allowed = await findAuthoredCourse(tx, author, target);
  const [course] = await typedRows<CourseRow>(tx, sql`select c.* from courses c where c.id = ${allowed.id} for update`);
  if (!course) throw new NotFoundError('Course not found');
  return course;
}

/**
 * May this author create a course for `institutionId` owned by `teacherId` (course creation,
 * an import, a new owner)? A partner: for an institution an operator bound to it (`lms-admin
 * partner bind`); an admin: for their own institution; a super_admin: any; a teacher: only as
 * themselves. The owner must be an active teacher of the institution. Both checked in one round
 * trip; either failure is a 403 naming the institution (an unknown institution reads as an
 * unbound one and an unknown teacher as a teacher of another institution, so nothing is probed).
 */
export async function assertMayCreateFor(
  tx: Db,
  author: Author | { kind: 'partner'; issuer: string },
  institutionId: number,
  teacherId: string,
): Promise<void> {
  const may =
    author.kind === 'partner'
      ? sql`exists (select 1 from partner_institutions pi join partners p on p.id = pi.partner_id
          where p.issuer = ${author.issuer} and p.is_active and pi.institution_id = ${institutionId})`
      : author.role === 'super_admin'
        ? sql`true`
        : author.role === 'admin'
          ? sql`exists (select 1 from users u where u.id = ${author.userId} and u.role = 'admin' and u.is_active and u.institution_id = ${institutionId})`
          : author.role === 'teacher'
            ? sql`${teacherId} = ${author.userId}`
            : sql`false`;
  const { rows } = await tx.execute(sql`
    select ${may} as may,
      exists (select 1 from users u where u.id = ${teacherId} and u.role = 'teacher' and u.is_active and u.institution_id = ${institutionId}) as teacher`);
  const answer = rows[0] as { may: boolean; teacher: boolean };
  const who = author.kind === 'partner' ? `Partner ${author.issuer}` : 'You';
  if (!answer.may) throw new ForbiddenError(`${who} may not create courses for institution ${institutionId}`);
  if (!answer.teacher) throw new ForbiddenError(`teacherId ${teacherId} is not an active teacher of institution ${institutionId}`);
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
