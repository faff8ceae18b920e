import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';

/** One learner of a course as its managers see them (the learners page and its CSV). */
export interface CourseLearnerRow {
  userId: string;
  name: string;
  email: string;
  membershipId: string | null;
  enrolledAt: Date;
  chaptersDone: number;
  chaptersTotal: number;
  /** Completed chapters over all chapters, 0-100, 2 decimals (the catalog's totalProgress). */
  progress: number;
  /** Attempts at the chapter and module quizzes, and the quizzes of those passed out of their number. */
  quizAttempts: number;
  quizzesPassed: number;
  quizzesTotal: number;
  bestQuizScore: number | null;
  finalBest: number | null;
  finalPassed: boolean;
  finalAttempts: number;
  /** The learner's certificate of the course: the one in force, else the latest revoked one. */
  certificateCode: string | null;
  certificateIssuedAt: Date | null;
  certificateRevokedAt: Date | null;
  certificateExpiresAt: Date | null;
  lastActivity: Date;
}

export const LEARNERS_PAGE_SIZE = 50;

/**
 * The learners of a course, by name, one page (`limit` rows from `offset`), with the total. A
 * bounded number of statements whatever the page size: one for the count, one for the rows (the
 * per-learner figures are correlated subqueries over indexed columns).
 */
export async function findCourseLearners(
  db: Db,
  courseId: number,
  { offset, limit }: { offset: number; limit: number },
): Promise<{ total: number; rows: CourseLearnerRow[] }> {
  const { rows: counted } = await db.execute(sql`select count(*)::int as n from enrollments where course_id = ${courseId}`);
  const { rows } = await db.execute(sql`
    with totals as (
      select (select count(*) from chapters where course_id = ${courseId})::int as chapters,
        (select count(*) from quizzes where course_id = ${courseId} and scope <> 'final')::int as quizzes
    )
    select u.id as "userId", u.name, u.email, u.membership_id as "membershipId", e.enrolled_at as "enrolledAt",
      e.completed_chapters as "chaptersDone", totals.chapters as "chaptersTotal",
      case when totals.chapters = 0 then 0 else round(e.completed_chapters * 100.0 / totals.chapters, 2)::float8 end as progress,
      (select count(*) from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope <> 'final')::int as "quizAttempts",
      (select count(distinct a.quiz_id) from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope <> 'final' and a.passed)::int as "quizzesPassed",
      totals.quizzes as "quizzesTotal",
      (select max(a.score)::float8 from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope <> 'final') as "bestQuizScore",
      (select max(a.score)::float8 from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope = 'final') as "finalBest",
      coalesce((select bool_or(a.passed) from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope = 'final'), false) as "finalPassed",
      (select count(*) from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where a.user_id = e.user_id and q.course_id = e.course_id and q.scope = 'final')::int as "finalAttempts",
      cert.code as "certificateCode", cert.issued_at as "certificateIssuedAt",
      cert.revoked_at as "certificateRevokedAt", cert.expires_at as "certificateExpiresAt",
      greatest(e.enrolled_at,
        (select max(cc.completed_at) from chapter_completions cc where cc.user_id = e.user_id and cc.course_id = e.course_id),
        (select max(coalesce(a.submitted_at, a.attempted_at)) from quiz_attempts a join quizzes q on q.id = a.quiz_id
          where a.user_id = e.user_id and q.course_id = e.course_id)) as "lastActivity"
    from enrollments e join users u on u.id = e.user_id cross join totals
      -- A reissue leaves the revoked certificate beside the new one: one row per learner all the same.
      left join lateral (
        select k.code, k.issued_at, k.revoked_at, k.expires_at from certificates k
        where k.user_id = e.user_id and k.course_id = e.course_id
        order by k.revoked_at is null desc, k.id desc limit 1
      ) cert on true
    where e.course_id = ${courseId}
    order by lower(u.name), u.id
    offset ${offset} limit ${limit}`);
  return {
    total: (counted[0] as { n: number }).n,
    rows: (rows as unknown as CourseLearnerRow[]).map((r) => ({
      ...r,
      enrolledAt: new Date(r.enrolledAt),
      lastActivity: new Date(r.lastActivity),
      certificateIssuedAt: r.certificateIssuedAt === null ? null : new Date(r.certificateIssuedAt),
      certificateRevokedAt: r.certificateRevokedAt === null ? null : new Date(r.certificateRevokedAt),
      certificateExpiresAt: r.certificateExpiresAt === null ? null : new Date(r.certificateExpiresAt),
    })),
  };
}
