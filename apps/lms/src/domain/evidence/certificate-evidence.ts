import { type CertificateEvidence, type Db, typedRows } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { type CourseRequirements, estimatedMinutes } from './requirements.js';

// The certificate waits for the evidence its course's credit requires (docs/authoring.md,
// "Pre-test, post-test and evaluation"): a submitted pre-test attempt, a post-test attempt at or
// above the minimum, the evaluation form. What is required depends on the accreditations in force
// at the moment of issue, so courseRequirements is read first (in TS) and the condition below is
// built from its answer; a course that requires nothing gets `true`, and issues as before.
// The same rule, for display, is `missingEvidence` below and domain/rules/learner-status.ts.

/** A submitted attempt of the course's quiz with that evidence role, for `userId` (course row under alias `c`). */
const attemptOf = (userId: string, role: 'pre_test' | 'post_test', extra: SQL = sql``) =>
  sql`exists (select 1 from quiz_attempts ev_qa join quizzes ev_q on ev_q.id = ev_qa.quiz_id
    where ev_q.course_id = c.id and ev_q.evidence_role = ${role} and ev_qa.user_id = ${userId}
      and ev_qa.score is not null ${extra})`;

/**
 * The condition insertCertificateIfEarned adds to its `where` (the course row is `c`): each part
 * only where `req` asks for it.
 */
export function evidenceCondition(req: CourseRequirements, userId: string): SQL {
  const parts: SQL[] = [sql`true`];
  if (req.requiresPreTest) parts.push(attemptOf(userId, 'pre_test'));
  if (req.postTestMinScore !== null) parts.push(attemptOf(userId, 'post_test', sql`and ev_qa.score >= ${req.postTestMinScore}`));
  if (req.requiresEvaluation)
    parts.push(sql`exists (select 1 from evaluation_completions ev_ec where ev_ec.user_id = ${userId} and ev_ec.course_id = c.id)`);
  return sql.join(parts, sql` and `);
}

/** The learner's evidence on a course as it stands (scores: the pre-test's first attempt, the post-test's best). */
async function readEvidence(db: Db, userId: string, courseId: number) {
  const [row] = await typedRows<{
    seconds: number;
    chapters: { expected: number | null; content: string }[];
    pre: number | null;
    post: number | null;
    preQuizId: number | null;
    postQuizId: number | null;
    evaluated: boolean;
  }>(
    db,
    sql`select
      coalesce((select sum(active_seconds)::int from chapter_time where user_id = ${userId} and course_id = ${courseId}), 0) as seconds,
      coalesce((select json_agg(json_build_object('expected', expected_minutes, 'content', content)) from chapters where course_id = ${courseId}), '[]'::json) as chapters,
      (select qa.score::float8 from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
        where q.course_id = ${courseId} and q.evidence_role = 'pre_test' and qa.user_id = ${userId} and qa.score is not null
        order by qa.submitted_at, qa.id limit 1) as pre,
      (select max(qa.score)::float8 from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
        where q.course_id = ${courseId} and q.evidence_role = 'post_test' and qa.user_id = ${userId} and qa.score is not null) as post,
      (select id from quizzes where course_id = ${courseId} and evidence_role = 'pre_test') as "preQuizId",
      (select id from quizzes where course_id = ${courseId} and evidence_role = 'post_test') as "postQuizId",
      exists (select 1 from evaluation_completions where user_id = ${userId} and course_id = ${courseId}) as evaluated`,
  );
  return {
    minutes: Math.floor(row.seconds / 60),
    expectedMinutes: row.chapters.reduce((sum, c) => sum + (c.expected ?? estimatedMinutes(c.content ?? '')), 0),
    preTestScore: row.pre,
    postTestScore: row.post,
    preQuizId: row.preQuizId,
    postQuizId: row.postQuizId,
    evaluationDone: row.evaluated,
  };
}

/**
 * Writes certificates.evidence for a certificate just issued, in the issuing transaction: the
 * evidence as it stands and the accreditations in force at `at`.
 */
export async function writeCertificateEvidence(tx: Db, code: string, userId: string, courseId: number, at: Date): Promise<void> {
  const e = await readEvidence(tx, userId, courseId);
  const accreditations = await typedRows<CertificateEvidence['accreditations'][number]>(
    tx,
    sql`select a.scheme, s.unit, a.reference, a.value::float8 as value,
        to_char(a.valid_from at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "validFrom",
        case when a.valid_until is null then null else to_char(a.valid_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') end as "validUntil"
      from course_accreditations a join credit_schemes s on s.code = a.scheme
      where a.course_id = ${courseId} and a.valid_from <= ${at.toISOString()}::timestamptz
        and (a.valid_until is null or a.valid_until > ${at.toISOString()}::timestamptz)
      order by a.scheme, a.id`,
  );
  const evidence: CertificateEvidence = {
    minutes: e.minutes,
    expectedMinutes: e.expectedMinutes,
    preTestScore: e.preTestScore,
    postTestScore: e.postTestScore,
    evaluationDone: e.evaluationDone,
    accreditations,
  };
  await tx.execute(sql`update certificates set evidence = ${JSON.stringify(evidence)}::jsonb where code = ${code}`);
  await tx.execute(sql`insert into evidence_log (user_id, course_id, kind, detail, at)
    values (${userId}, ${courseId}, 'certificate', ${JSON.stringify({ code })}::jsonb, ${at.toISOString()}::timestamptz)`);
}

/** One piece of evidence the certificate still waits for (the learner's course page lists them, with links). */
export type MissingEvidence =
  | { kind: 'pre_test'; quizId: number | null }
  | { kind: 'post_test'; quizId: number | null; minScore: number; bestScore: number | null }
  | { kind: 'evaluation' };

/** What `evidenceCondition(req, userId)` still finds missing (empty: nothing; `req` requiring nothing: always empty). */
export async function missingEvidence(db: Db, userId: string, courseId: number, req: CourseRequirements): Promise<MissingEvidence[]> {
  if (!req.requiresPreTest && req.postTestMinScore === null && !req.requiresEvaluation) return [];
  const e = await readEvidence(db, userId, courseId);
  const missing: MissingEvidence[] = [];
  if (req.requiresPreTest && e.preTestScore === null) missing.push({ kind: 'pre_test', quizId: e.preQuizId });
  if (req.postTestMinScore !== null && (e.postTestScore === null || e.postTestScore < req.postTestMinScore))
    missing.push({ kind: 'post_test', quizId: e.postQuizId, minScore: req.postTestMinScore, bestScore: e.postTestScore });
  if (req.requiresEvaluation && !e.evaluationDone) missing.push({ kind: 'evaluation' });
  return missing;
}
