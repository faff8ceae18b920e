import { type certificates, type Db, type enrollments, type purchases, type RawSelect, typedRows, type users } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';

/**
 * One learner of a course as findCourseLearners' statement reads it (raw: a report of correlated
 * subqueries over a union of the enrolled and the refunded, one statement per page). Columns of
 * a table are typed from it; the figures are computed (ints and float8).
 */
type LearnerReportRow = Pick<RawSelect<typeof users>, 'name' | 'email' | 'membershipId'> & {
  userId: RawSelect<typeof users>['id'];
  enrolledAt: RawSelect<typeof enrollments>['enrolledAt'];
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
  certificateCode: RawSelect<typeof certificates>['code'] | null;
  certificateIssuedAt: RawSelect<typeof certificates>['issuedAt'] | null;
  certificateRevokedAt: RawSelect<typeof certificates>['revokedAt'];
  certificateExpiresAt: RawSelect<typeof certificates>['expiresAt'];
  lastActivity: string;
  refundedAt: RawSelect<typeof purchases>['closedAt'];
  refundReason: RawSelect<typeof purchases>['closeReason'];
  certificateKeptReason: RawSelect<typeof purchases>['certificateKeptReason'];
};

type Dated<K extends keyof LearnerReportRow> = { [P in K]: null extends LearnerReportRow[P] ? Date | null : Date };

/** One learner of a course as its managers see them (the learners page and its CSV): the report row with its dates as Dates. */
export type CourseLearnerRow = Omit<
  LearnerReportRow,
  | 'enrolledAt'
  | 'certificateIssuedAt'
  | 'certificateRevokedAt'
  | 'certificateExpiresAt'
  | 'lastActivity'
  | 'refundedAt'
  | 'refundReason'
  | 'certificateKeptReason'
> &
  Dated<'enrolledAt' | 'certificateIssuedAt' | 'certificateRevokedAt' | 'certificateExpiresAt' | 'lastActivity'> & {
    /**
     * A learner whose purchase of the course (or a bundle holding it) was refunded and who is not
     * enrolled any more: when and why, and why the admin kept their certificate (null when not).
     * Null for those enrolled.
     */
    refund: { at: Date; reason: string | null; certificateKeptReason: string | null } | null;
  };

export const LEARNERS_PAGE_SIZE = 50;

/**
 * The learners of a course, by name, one page (`limit` rows from `offset`), with the total (of
 * which `refunded`: those whose purchase was refunded and who are not enrolled any more). A
 * bounded number of statements whatever the page size: one for the count, one for the rows (the
 * per-learner figures are correlated subqueries over indexed columns).
 */
export async function findCourseLearners(
  db: Db,
  courseId: number,
  { offset, limit }: { offset: number; limit: number },
): Promise<{ total: number; refunded: number; rows: CourseLearnerRow[] }> {
  const refunded = refundedLearners(courseId);
  const [{ enrolled, refunded: refundedCount }] = await typedRows<{ enrolled: number; refunded: number }>(
    db,
    sql`
    with refunded as (${refunded})
    select (select count(*) from enrollments where course_id = ${courseId})::int as enrolled, (select count(*) from refunded)::int as refunded`,
  );
  const rows = await typedRows<LearnerReportRow>(
    db,
    sql`
    with refunded as (${refunded}),
    learners as (
      select e.user_id, e.course_id, e.enrolled_at, e.completed_chapters,
        null::timestamptz as refunded_at, null::text as refund_reason, null::text as kept_reason
      from enrollments e where e.course_id = ${courseId}
      union all
      -- The enrolment is gone with the refund; the completions stay, and are counted from them.
      select r.user_id, ${courseId}::int, r.enrolled_at,
        (select count(distinct cc.chapter_id) from chapter_completions cc join chapters ch on ch.id = cc.chapter_id
          where cc.user_id = r.user_id and ch.course_id = ${courseId})::int,
        r.refunded_at, r.refund_reason, r.kept_reason
      from refunded r
    ),
    totals as (
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
          where a.user_id = e.user_id and q.course_id = e.course_id)) as "lastActivity",
      e.refunded_at as "refundedAt", e.refund_reason as "refundReason", e.kept_reason as "certificateKeptReason"
    from learners e join users u on u.id = e.user_id cross join totals
      -- A reissue leaves the revoked certificate beside the new one: one row per learner all the same.
      left join lateral (
        select k.code, k.issued_at, k.revoked_at, k.expires_at from certificates k
        where k.user_id = e.user_id and k.course_id = e.course_id
        order by k.revoked_at is null desc, k.id desc limit 1
      ) cert on true
    order by lower(u.name), u.id
    offset ${offset} limit ${limit}`,
  );
  return {
    total: enrolled + refundedCount,
    refunded: refundedCount,
    rows: rows.map(({ refundedAt, refundReason, certificateKeptReason, ...r }) => ({
      ...r,
      refund: refundedAt === null ? null : { at: new Date(refundedAt), reason: refundReason, certificateKeptReason },
      enrolledAt: new Date(r.enrolledAt),
      lastActivity: new Date(r.lastActivity),
      certificateIssuedAt: r.certificateIssuedAt === null ? null : new Date(r.certificateIssuedAt),
      certificateRevokedAt: r.certificateRevokedAt === null ? null : new Date(r.certificateRevokedAt),
      certificateExpiresAt: r.certificateExpiresAt === null ? null : new Date(r.certificateExpiresAt),
    })),
  };
}

/**
 * The learners of a course whose purchase of it (or of a bundle holding it) was refunded and who
 * are not enrolled now (docs/architecture.md, "A refund ends what it bought"): one row each, their
 * latest refund. Read through purchases' course and bundle indexes.
 */
function refundedLearners(courseId: number): SQL {
  return sql`
    select distinct on (p.user_id) p.user_id, coalesce(p.paid_at, p.closed_at) as enrolled_at, p.closed_at as refunded_at,
      p.close_reason as refund_reason, p.certificate_kept_reason as kept_reason
    from purchases p
    where p.status = 'refunded'
      and (p.course_id = ${courseId}
        or p.bundle_id in (select b.id from bundles b where ${courseId} in (b.course_one_id, b.course_two_id)))
      and not exists (select 1 from enrollments e where e.user_id = p.user_id and e.course_id = ${courseId})
    order by p.user_id, p.closed_at desc, p.id desc`;
}

/** Where a person stands with a course for its managers' learner page: enrolled, refunded (and not enrolled), or neither. */
export async function learnerStandingIn(db: Db, userId: string, courseId: number): Promise<'enrolled' | 'refunded' | null> {
  const [r] = await typedRows<{ enrolled: boolean; refunded: boolean }>(
    db,
    sql`
    select exists (select 1 from enrollments where user_id = ${userId} and course_id = ${courseId}) as enrolled,
      exists (select 1 from (${refundedLearners(courseId)}) r where r.user_id = ${userId}) as refunded`,
  );
  return r.enrolled ? 'enrolled' : r.refunded ? 'refunded' : null;
}
