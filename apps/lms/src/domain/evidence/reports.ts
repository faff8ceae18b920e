import { type Db, type EvaluationItem, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { MIN_RESPONSES_SHOWN } from './evaluation.js';
import { STANDARD_EVALUATION_ITEMS } from './requirements.js';

// Reports per body (docs/authoring.md, "Reports per body"; DESIGN 5g): what an accrediting body
// asks of a course's provider for a period. The participant list (one row per enrolment: the
// person as the partner knows them, the evidence measured, the certificate and the credit per
// scheme), read page by page in enrolment order so that a course of 10,000 participants is
// never in memory at once; and the evaluation summary (averages per item and the comments, with
// nothing that says who wrote them). Only a course's managers read them (the routes check).

/** Which date the period is about: the certificate's issue, or the enrolment. */
export type ReportBasis = 'certificate' | 'enrolment';
export interface ReportPeriod {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  basis: ReportBasis;
}

export interface ParticipantRow {
  enrollmentId: number;
  userId: string;
  name: string;
  membershipId: string | null;
  /** Every partner's number for the person, "issuer: number" joined by "; ", or null. */
  partnerIds: string | null;
  /** Not recorded yet: null (no profession field exists on a person). */
  profession: string | null;
  enrolledAt: Date;
  /** Active minutes on the course's chapters (chapter_time, whole minutes down), plus those an admin's corrections added. */
  minutes: number;
  /** Percent of live sessions attended: null until live sessions exist (issue 46). */
  attendance: number | null;
  preTestScore: number | null;
  postTestScore: number | null;
  evaluationDone: boolean;
  certificateCode: string | null;
  certificateIssuedAt: Date | null;
  certificateExpiresAt: Date | null;
  /** The credit per scheme earned by the certificate in force (voided credits left out). */
  credits: { scheme: string; amount: number; reference: string | null }[];
}

type RawParticipant = Omit<ParticipantRow, 'enrolledAt' | 'certificateIssuedAt' | 'certificateExpiresAt' | 'profession' | 'attendance'> & {
  enrolledAt: string;
  certificateIssuedAt: string | null;
  certificateExpiresAt: string | null;
};

/** Rows per statement of the list. */
export const PARTICIPANT_PAGE = 1000;

/**
 * A learner's evidence in a course, per enrolment `e` (and the certificate in force `k` of
 * EVIDENCE_FROM): the report's columns and the partner's evidence read are this one fragment.
 */
export const EVIDENCE_COLUMNS = sql`e.enrolled_at as "enrolledAt",
      ((coalesce((select sum(ct.active_seconds) from chapter_time ct where ct.course_id = e.course_id and ct.user_id = e.user_id), 0) / 60)::int
        + coalesce((select sum((l.detail->>'addMinutes')::int) from evidence_log l
            where l.user_id = e.user_id and l.course_id = e.course_id and l.kind = 'correction' and l.detail ? 'addMinutes'), 0))::int as minutes,
      (select a.score::float8 from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where q.course_id = e.course_id and q.evidence_role = 'pre_test' and a.user_id = e.user_id and a.score is not null
        order by a.submitted_at, a.id limit 1) as "preTestScore",
      (select max(a.score)::float8 from quiz_attempts a join quizzes q on q.id = a.quiz_id
        where q.course_id = e.course_id and q.evidence_role = 'post_test' and a.user_id = e.user_id) as "postTestScore",
      exists (select 1 from evaluation_completions ec where ec.user_id = e.user_id and ec.course_id = e.course_id) as "evaluationDone",
      k.code as "certificateCode", k.issued_at as "certificateIssuedAt", k.expires_at as "certificateExpiresAt",
      case when k.id is null then '[]'::json else
        (select coalesce(json_agg(json_build_object('scheme', cr.scheme, 'amount', cr.amount::float8, 'reference', ca.reference) order by cr.scheme), '[]'::json)
          from credits cr left join course_accreditations ca on ca.id = cr.accreditation_id
          where cr.certificate_id = k.id and cr.voided_at is null) end as credits`;

/** Enrolments `e`, their person `u` and the certificate in force `k` (the latest not revoked), for EVIDENCE_COLUMNS. */
export const EVIDENCE_FROM = sql`enrollments e join users u on u.id = e.user_id
      left join lateral (select c.id, c.code, c.issued_at, c.expires_at from certificates c
        where c.user_id = e.user_id and c.course_id = e.course_id and c.revoked_at is null order by c.id desc limit 1) k on true`;

/** The statement of one page of the participant list (exported for the bench's own-SQL baseline). */
export function participantPageSql(courseId: number, period: ReportPeriod, afterEnrollmentId: number, limit: number) {
  const from = period.from.toISOString();
  const to = period.to.toISOString();
  const inPeriod =
    period.basis === 'certificate'
      ? sql`k.issued_at >= ${from}::timestamptz and k.issued_at < ${to}::timestamptz`
      : sql`e.enrolled_at >= ${from}::timestamptz and e.enrolled_at < ${to}::timestamptz`;
  return sql`select e.id as "enrollmentId", u.id as "userId", u.name, u.membership_id as "membershipId",
      (select string_agg(i.issuer || ': ' || i.membership_id, '; ' order by i.issuer) from identities i where i.user_id = u.id) as "partnerIds",
      ${EVIDENCE_COLUMNS}
    from ${EVIDENCE_FROM}
    where e.course_id = ${courseId} and e.id > ${afterEnrollmentId} and ${inPeriod}
    order by e.id limit ${limit}`;
}

/** The participant list, page by page (bounded memory whatever the course's size). */
export async function* participantPages(
  db: Db,
  courseId: number,
  period: ReportPeriod,
  pageSize = PARTICIPANT_PAGE,
): AsyncGenerator<ParticipantRow[]> {
  let after = 0;
  for (;;) {
    const rows = await typedRows<RawParticipant>(db, participantPageSql(courseId, period, after, pageSize));
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      ...r,
      profession: null,
      attendance: null,
      enrolledAt: new Date(r.enrolledAt),
      certificateIssuedAt: r.certificateIssuedAt === null ? null : new Date(r.certificateIssuedAt),
      certificateExpiresAt: r.certificateExpiresAt === null ? null : new Date(r.certificateExpiresAt),
    }));
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = last.enrollmentId;
  }
}

/** The schemes a course's report has a credit column for: those it is or was accredited in, and any it credited. */
export async function reportSchemes(db: Db, courseId: number): Promise<string[]> {
  const rows = await typedRows<{ scheme: string }>(
    db,
    sql`select scheme from course_accreditations where course_id = ${courseId}
        union select scheme from credits where course_id = ${courseId} order by scheme`,
  );
  return rows.map((r) => r.scheme);
}

/** The list's columns (English names, as the learners CSV): fixed ones, then two per scheme. */
export function participantHeader(schemes: string[]): string[] {
  return [
    'name',
    'membership_id',
    'partner_membership_ids',
    'profession',
    'enrolled_at',
    'minutes',
    'attendance_percent',
    'pre_test_score',
    'post_test_score',
    'evaluation_done',
    'certificate_code',
    'certificate_issued_at',
    'certificate_expires_at',
    ...schemes.flatMap((s) => [`credit_${s}`, `accreditation_${s}`]),
  ];
}

/** One row's cells in the header's order (text stays text: the writers defuse it). */
export function participantCells(r: ParticipantRow, schemes: string[]): (string | number | null)[] {
  const bySchema = new Map(r.credits.map((c) => [c.scheme, c]));
  return [
    r.name,
    r.membershipId,
    r.partnerIds,
    r.profession,
    r.enrolledAt.toISOString(),
    r.minutes,
    r.attendance,
    r.preTestScore,
    r.postTestScore,
    r.evaluationDone ? 'yes' : 'no',
    r.certificateCode,
    r.certificateIssuedAt?.toISOString() ?? null,
    r.certificateExpiresAt?.toISOString() ?? null,
    ...schemes.flatMap((s) => {
      const c = bySchema.get(s);
      return [c?.amount ?? null, c?.reference ?? null];
    }),
  ];
}

export interface PeriodEvaluationSummary {
  responses: number;
  items: { key: string; id: string; en: string; average: number | null; answers: number }[];
  /**
   * The comments, alphabetical (no order of arrival, no date, no person); none below
   * MIN_RESPONSES_SHOWN responses in the period, where a comment could give its writer away (the
   * averages are null then too).
   */
  comments: string[];
}

/** The most comments a summary carries. */
export const MAX_SUMMARY_COMMENTS = 5000;

/**
 * The evaluation summary of a course for a period (the day the form came in): averages per item of
 * the course's form (its own items, else the standard ones) and the comments. Never who wrote what.
 * (evaluation.ts's evaluationSummary is the course's whole summary with the counts per answer, for
 * the evaluation page; this one is the body's report for a period.)
 */
export async function periodEvaluationSummary(
  db: Db,
  courseId: number,
  period: Pick<ReportPeriod, 'from' | 'to'>,
): Promise<PeriodEvaluationSummary> {
  const from = period.from.toISOString().slice(0, 10);
  const to = period.to.toISOString().slice(0, 10);
  const inPeriod = sql`r.course_id = ${courseId} and r.submitted_on >= ${from}::date and r.submitted_on < ${to}::date`;
  const [course] = await typedRows<{ items: EvaluationItem[] | null }>(
    db,
    sql`select evaluation_items as items from courses where id = ${courseId}`,
  );
  const [averages, comments, counted] = await Promise.all([
    typedRows<{ key: string; average: number; answers: number }>(
      db,
      sql`select a.key, avg(a.value::numeric)::float8 as average, count(*)::int as answers
          from evaluation_responses r, jsonb_each_text(r.answers) a where ${inPeriod} group by a.key`,
    ),
    typedRows<{ comment: string }>(
      db,
      sql`select r.comment from evaluation_responses r where ${inPeriod} and r.comment <> '' order by r.comment limit ${MAX_SUMMARY_COMMENTS}`,
    ),
    typedRows<{ n: number }>(db, sql`select count(*)::int as n from evaluation_responses r where ${inPeriod}`),
  ]);
  const byKey = new Map(averages.map((a) => [a.key, a]));
  const items = course?.items ?? STANDARD_EVALUATION_ITEMS;
  const responses = counted[0]?.n ?? 0;
  const shown = responses >= MIN_RESPONSES_SHOWN;
  return {
    responses,
    items: items.map((i) => {
      const a = byKey.get(i.key);
      return { ...i, average: a && shown ? Math.round(a.average * 100) / 100 : null, answers: a?.answers ?? 0 };
    }),
    comments: shown ? comments.map((c) => c.comment) : [],
  };
}
