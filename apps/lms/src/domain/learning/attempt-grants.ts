import { courses, type Db, inTransaction, quizAttemptGrants, quizzes, type RawSelect, typedRows, type UserRole, type users } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { attemptGranted, type Receipts } from '../../notifications/receipts.js';
import { managesCourseColumn } from '../rules/course-managers.js';
import { isEnrolled } from './access.js';

/** The most attempts one grant gives (a CHECK of the table says the same). */
export const MAX_EXTRA_ATTEMPTS = 20;
export const MAX_GRANT_REASON = 500;
/**
 * The most extra attempts one learner may hold at one quiz, all grants together: as many as a quiz
 * may allow by itself (its maxAttempts is at most 100). Without it 300 grants gave 6,000 (issue 40).
 */
export const MAX_TOTAL_EXTRA_ATTEMPTS = 100;

/** 409: the grant would take the learner's extra attempts at the quiz past MAX_TOTAL_EXTRA_ATTEMPTS. */
export class TooManyExtraAttemptsError extends ConflictError {
  constructor(readonly held: number) {
    super(
      `This learner already has ${held} extra attempt(s) at this quiz; at most ${MAX_TOTAL_EXTRA_ATTEMPTS} in all, so at most ${Math.max(0, MAX_TOTAL_EXTRA_ATTEMPTS - held)} more`,
    );
  }
}

/** A grant as findGrants reads it (raw: three tables, the granter's name by a left join). */
type GrantRow = Pick<RawSelect<typeof quizAttemptGrants>, 'id' | 'quizId' | 'extraAttempts' | 'reason' | 'grantedAt'> & {
  quizName: RawSelect<typeof quizzes>['name'];
  grantedByName: RawSelect<typeof users>['name'] | null;
};

export type GrantRecord = Omit<GrantRow, 'grantedAt'> & { grantedAt: Date };

/**
 * Whether this person manages the course (rules/course-managers.ts): 404 for a course that does
 * not exist, 403 for one they do not manage.
 */
export async function assertManages(db: Db, person: { userId: string; role: UserRole }, courseId: number): Promise<void> {
  const [row] = await db
    .select({ manages: managesCourseColumn(person) })
    .from(courses)
    .where(eq(courses.id, courseId));
  if (!row) throw new NotFoundError('Course not found');
  if (!row.manages) throw new ForbiddenError("Only the course's teacher, an admin of its institution or a super_admin may do this");
}

/**
 * Gives one learner `extra` more attempts at one quiz of a course the granter manages, with the
 * reason; recorded (who, when, why, how many). The learner must be enrolled in the quiz's course,
 * and holds at most MAX_TOTAL_EXTRA_ATTEMPTS extra attempts at a quiz, all grants together (409).
 */
export async function grantAttempts(
  db: Db,
  receipts: Receipts,
  granter: { userId: string; role: UserRole },
  grant: { courseId: number; quizId: number; userId: string; extra: number; reason: string },
  at: Date,
): Promise<GrantRecord> {
  await assertManages(db, granter, grant.courseId);
  const [quiz] = await db
    .select({ id: quizzes.id, name: quizzes.name })
    .from(quizzes)
    .where(and(eq(quizzes.id, grant.quizId), eq(quizzes.courseId, grant.courseId)));
  if (!quiz) throw new NotFoundError('Quiz not found in this course');
  if (!(await isEnrolled(db, grant.userId, grant.courseId))) throw new NotFoundError('Learner not found in this course');
  // The sum and the insert hold the (learner, quiz) lock startAttempt takes: two grants at once cannot pass the cap.
  const r = await inTransaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${grant.userId}), ${quiz.id})`);
    const { rows } = await tx.execute(sql`
      select coalesce(sum(extra_attempts), 0)::int as held from quiz_attempt_grants where user_id = ${grant.userId} and quiz_id = ${quiz.id}`);
    const held = (rows[0] as { held: number }).held;
    if (held + grant.extra > MAX_TOTAL_EXTRA_ATTEMPTS) throw new TooManyExtraAttemptsError(held);
    const [row] = await tx
      .insert(quizAttemptGrants)
      .values({
        quizId: quiz.id,
        userId: grant.userId,
        extraAttempts: grant.extra,
        reason: grant.reason,
        grantedBy: granter.userId,
        grantedAt: at,
      })
      .returning();
    // biome-ignore lint/style/noNonNullAssertion: an insert returns its row.
    const granted = row!;
    await attemptGranted(tx, receipts, {
      id: granted.id,
      userId: grant.userId,
      courseId: grant.courseId,
      quizId: quiz.id,
      quizTitle: quiz.name,
    });
    return granted;
  });
  return {
    id: r.id,
    quizId: quiz.id,
    quizName: quiz.name,
    extraAttempts: r.extraAttempts,
    reason: r.reason,
    grantedAt: r.grantedAt,
    grantedByName: null,
  };
}

/** The grants one learner received in one course, newest first, with who gave them. */
export async function findGrants(db: Db, userId: string, courseId: number): Promise<GrantRecord[]> {
  const rows = await typedRows<GrantRow>(
    db,
    sql`
    select g.id, g.quiz_id as "quizId", q.name as "quizName", g.extra_attempts as "extraAttempts", g.reason,
      g.granted_at as "grantedAt", u.name as "grantedByName"
    from quiz_attempt_grants g join quizzes q on q.id = g.quiz_id left join users u on u.id = g.granted_by
    where g.user_id = ${userId} and q.course_id = ${courseId}
    order by g.granted_at desc, g.id desc`,
  );
  return rows.map((g) => ({ ...g, grantedAt: new Date(g.grantedAt) }));
}
