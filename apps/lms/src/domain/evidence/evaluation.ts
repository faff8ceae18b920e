import {
  type Db,
  type EvaluationItem,
  evaluationCompletions,
  evaluationResponses,
  evidenceLog,
  inTransaction,
  typedRows,
  type UserRole,
} from '@lms/db';
import { sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../../errors.js';
import { isEnrolled, NotEnrolledError } from '../learning/access.js';
import { assertManages } from '../learning/attempt-grants.js';
import { issueCertificateIfEarned } from '../learning/certificates.js';
import { STANDARD_EVALUATION_ITEMS } from './requirements.js';
import type { Receipts } from '../../notifications/receipts.js';

// The evaluation form (docs/authoring.md, "Pre-test, post-test and evaluation"): a Likert 1-5
// answer per item and a free comment, once per learner, after every chapter. The answers are kept
// apart from who wrote them: evaluation_responses has no user and only the day it came in;
// evaluation_completions says that the learner filled it in. The managers' summary shows the number
// of responses and, from MIN_RESPONSES_SHOWN responses on, the averages, the counts and the
// comments; never who wrote what.

/** The longest comment (characters). */
export const MAX_EVALUATION_COMMENT = 2000;
/**
 * Below this many responses a summary shows only how many there are: with one or two, the managers
 * (who see who filled in the form) could read a learner's own answers off the averages, the counts
 * or a comment.
 */
export const MIN_RESPONSES_SHOWN = 3;

/** The form's items: the course's own, else its accredited scheme's, else the standard ones. */
export async function evaluationItems(db: Db, courseId: number, at: Date): Promise<EvaluationItem[] | null> {
  const [row] = await typedRows<{ own: EvaluationItem[] | null; scheme: EvaluationItem[] | null }>(
    db,
    sql`select c.evaluation_items as own,
        (select s.evaluation_items from course_accreditations a join credit_schemes s on s.code = a.scheme
          where a.course_id = c.id and s.evaluation_items is not null and a.valid_from <= ${at.toISOString()}::timestamptz
            and (a.valid_until is null or a.valid_until > ${at.toISOString()}::timestamptz)
          order by a.scheme limit 1) as scheme
      from courses c where c.id = ${courseId}`,
  );
  if (!row) return null;
  return row.own ?? row.scheme ?? STANDARD_EVALUATION_ITEMS;
}

export interface EvaluationAnswers {
  answers: Record<string, number>;
  comment: string;
}

/** Checks a submitted form against the items: every item answered 1..5 (an integer), nothing else; a comment of printable text. 422 otherwise. */
export function checkEvaluation(items: readonly EvaluationItem[], body: unknown): EvaluationAnswers {
  const input = (typeof body === 'object' && body !== null ? body : {}) as { answers?: unknown; comment?: unknown };
  const answers = input.answers;
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers))
    throw new UnprocessableError('answers: an object of item key → 1..5 is required');
  const given = answers as Record<string, unknown>;
  const keys = new Set(items.map((i) => i.key));
  for (const key of Object.keys(given))
    if (!keys.has(key)) throw new UnprocessableError(`answers.${key.slice(0, 40)}: not an item of this form`);
  const kept: Record<string, number> = {};
  for (const item of items) {
    const v = given[item.key];
    const n = typeof v === 'string' && /^[1-5]$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 5)
      throw new UnprocessableError(`answers.${item.key}: an answer from 1 to 5 is required`);
    kept[item.key] = n;
  }
  const comment = input.comment ?? '';
  if (typeof comment !== 'string') throw new UnprocessableError('comment: text is expected');
  if (comment.length > MAX_EVALUATION_COMMENT) throw new UnprocessableError(`comment: at most ${MAX_EVALUATION_COMMENT} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(comment))
    throw new UnprocessableError('comment: control characters are not allowed');
  return { answers: kept, comment: comment.trim() };
}

/** Whether the learner may fill in the form now: enrolled (403), every chapter completed (403), not done before (409). */
async function assertMayEvaluate(db: Db, userId: string, courseId: number): Promise<void> {
  if (!(await isEnrolled(db, userId, courseId))) throw new NotEnrolledError();
  const [row] = await typedRows<{ left: number; done: boolean }>(
    db,
    sql`select (select count(*)::int from chapters ch where ch.course_id = ${courseId}
          and not exists (select 1 from chapter_completions cc where cc.user_id = ${userId} and cc.chapter_id = ch.id)) as left,
        exists (select 1 from evaluation_completions where user_id = ${userId} and course_id = ${courseId}) as done`,
  );
  if (row.done) throw new ConflictError('You have already filled in the evaluation of this course');
  if (row.left > 0) throw new ForbiddenError('The evaluation opens once every chapter of the course is completed');
}

/**
 * The learner's form: the items, the course's name, whether it is done and whether it is open
 * (every chapter completed). 404 no course, 403 not enrolled.
 */
export async function evaluationState(db: Db, userId: string, courseId: number, at: Date) {
  const items = await evaluationItems(db, courseId, at);
  if (items === null) throw new NotFoundError('Course not found');
  if (!(await isEnrolled(db, userId, courseId))) throw new NotEnrolledError();
  const [row] = await typedRows<{ courseName: string; done: boolean; left: number }>(
    db,
    sql`select c.name as "courseName",
        exists (select 1 from evaluation_completions where user_id = ${userId} and course_id = ${courseId}) as done,
        (select count(*)::int from chapters ch where ch.course_id = ${courseId}
          and not exists (select 1 from chapter_completions cc where cc.user_id = ${userId} and cc.chapter_id = ch.id)) as left
      from courses c where c.id = ${courseId}`,
  );
  return { items, courseName: row.courseName, done: row.done, open: !row.done && row.left === 0 };
}

/**
 * Records the learner's evaluation in one transaction (the anonymous response, the completion, the
 * evidence_log entry), then tries issuing the certificate. 404 no course, 403 not enrolled or
 * chapters left, 409 already done, 422 a wrong answer.
 */
export async function submitEvaluation(
  db: Db,
  receipts: Receipts,
  userId: string,
  courseId: number,
  body: unknown,
  at: Date,
  sessionId: string | null,
): Promise<{ certificateCode: string | null }> {
  const items = await evaluationItems(db, courseId, at);
  if (items === null) throw new NotFoundError('Course not found');
  await assertMayEvaluate(db, userId, courseId);
  const form = checkEvaluation(items, body);
  await inTransaction(db, async (tx) => {
    const done = await tx
      .insert(evaluationCompletions)
      .values({ userId, courseId, completedAt: at })
      .onConflictDoNothing()
      .returning({ userId: evaluationCompletions.userId });
    if (done.length === 0) throw new ConflictError('You have already filled in the evaluation of this course');
    // The day only (UTC): the moment would pair the answers with the completion's time.
    await tx
      .insert(evaluationResponses)
      .values({ courseId, answers: form.answers, comment: form.comment, submittedOn: at.toISOString().slice(0, 10) });
    await tx.insert(evidenceLog).values({ userId, courseId, kind: 'evaluation', detail: {}, sessionId, at });
  });
  return { certificateCode: await issueCertificateIfEarned(db, receipts, userId, courseId, at) };
}

export interface EvaluationSummary {
  courseId: number;
  courseName: string;
  responses: number;
  /** average and counts null below MIN_RESPONSES_SHOWN responses. */
  items: { key: string; id: string; en: string; average: number | null; counts: number[] | null }[];
  /** Null below MIN_RESPONSES_SHOWN responses. */
  comments: string[] | null;
}

/** The managers' summary (403 anyone else, 404 no course): per item the average and the count of each answer; the comments, shuffled by id. */
export async function evaluationSummary(
  db: Db,
  person: { userId: string; role: UserRole },
  courseId: number,
  at: Date,
): Promise<EvaluationSummary> {
  await assertManages(db, person, courseId);
  const items = (await evaluationItems(db, courseId, at)) ?? STANDARD_EVALUATION_ITEMS;
  // Random ids: ordering by id gives no order of submission.
  const rows = await typedRows<{ answers: Record<string, number>; comment: string }>(
    db,
    sql`select answers, comment from evaluation_responses where course_id = ${courseId} order by id`,
  );
  const [course] = await typedRows<{ name: string }>(db, sql`select name from courses where id = ${courseId}`);
  const shown = rows.length >= MIN_RESPONSES_SHOWN;
  return {
    courseId,
    courseName: course.name,
    responses: rows.length,
    items: items.map((item) => {
      const values = rows.map((r) => r.answers[item.key]).filter((v): v is number => typeof v === 'number');
      const counts = [1, 2, 3, 4, 5].map((n) => values.filter((v) => v === n).length);
      const average = values.length === 0 ? null : Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 100) / 100;
      return { key: item.key, id: item.id, en: item.en, average: shown ? average : null, counts: shown ? counts : null };
    }),
    comments: !shown ? null : rows.map((r) => r.comment).filter((c) => c !== ''),
  };
}
