import {
  type AttemptQuestion,
  type courses,
  type Db,
  inTransaction,
  type QuestionOption,
  type questions as questionsTable,
  type quizAttempts,
  type quizzes,
  type RawSelect,
  typedRows,
} from '@lms/db';
import { sql } from 'drizzle-orm';
import { ConflictError, NotFoundError } from '../../errors.js';
import { passMarkOf } from '../rules/pass-mark.js';
import { loadCourseProgress } from '../rules/unlock.js';
import { isEnrolled, lockedError, NotEnrolledError } from './access.js';
import { issueCertificateIfEarned } from './certificates.js';
import { drawAttemptQuestions } from './quiz-draw.js';
import type { Receipts } from '../../notifications/receipts.js';

/** Answers sent this long after expiresAt still count: the time the form took to travel. */
export const SUBMISSION_GRACE_MS = 30_000;

/** A quiz with its course's pass mark, as findQuiz reads it (raw: read on every quiz page and submission). */
type QuizRow = Pick<
  RawSelect<typeof quizzes>,
  'id' | 'courseId' | 'scope' | 'chapterId' | 'moduleId' | 'name' | 'description' | 'timeLimit' | 'maxAttempts' | 'minimumScore'
> &
  Pick<RawSelect<typeof courses>, 'minPassingScore'>;

/** An attempt's row as the learner's reads take it (raw, like the rest of the attempt path). */
type AttemptRow = Pick<RawSelect<typeof quizAttempts>, 'id' | 'attemptedAt' | 'expiresAt' | 'submittedAt' | 'passMark'>;

/** A question as the learner sees it: never `isCorrect`, `correctAnswer`, `essayAnswer` or `explanation`. */
export interface LearnerQuestion {
  id: number;
  questionText: string;
  questionType: string;
  points: number;
  options: { id: string; text: string }[];
}

export interface AttemptView {
  attemptId: number;
  quiz: {
    id: number;
    courseId: number;
    name: string;
    description: string;
    scope: 'chapter' | 'module' | 'final';
    passMark: number;
    timeLimit: number;
    maxAttempts: number;
  };
  attemptNumber: number;
  startedAt: Date;
  expiresAt: Date | null;
  questions: LearnerQuestion[];
}

export async function findQuiz(db: Db, quizId: number): Promise<QuizRow | null> {
  const [row] = await typedRows<QuizRow>(
    db,
    sql`
    select q.id, q.course_id as "courseId", q.scope, q.chapter_id as "chapterId", q.module_id as "moduleId", q.name, q.description,
      q.time_limit as "timeLimit", q.max_attempts as "maxAttempts", q.minimum_score as "minimumScore", c.min_passing_score as "minPassingScore"
    from quizzes q join courses c on c.id = q.course_id where q.id = ${quizId}`,
  );
  return row ?? null;
}

/**
 * How many attempts this learner has at this quiz: its maxAttempts plus what the course's
 * managers granted them (quiz_attempt_grants, domain/learning/attempt-grants.ts).
 */
export async function attemptAllowance(db: Db, userId: string, quiz: { id: number; maxAttempts: number }): Promise<number> {
  const [{ extra }] = await typedRows<{ extra: number }>(
    db,
    sql`
    select coalesce(sum(extra_attempts), 0)::int as extra from quiz_attempt_grants where user_id = ${userId} and quiz_id = ${quiz.id}`,
  );
  return quiz.maxAttempts + extra;
}

/** The score a submission needs (rules/pass-mark.ts): the final exam's is the course's minPassingScore, any other quiz's its minimumScore. */
export const passMark = (quiz: QuizRow) => passMarkOf(quiz, quiz);

/**
 * The quiz's questions as an attempt keeps them (quiz_attempts.questions): with their answer keys,
 * which stay on the server; learnerView() is what a learner is shown of them.
 */
async function attemptQuestions(db: Db, quizId: number): Promise<AttemptQuestion[]> {
  return typedRows<Pick<RawSelect<typeof questionsTable>, keyof AttemptQuestion>>(
    db,
    sql`
    select id, question_text as "questionText", question_type as "questionType", points, options, correct_answer as "correctAnswer"
    from questions where quiz_id = ${quizId} order by order_index, id`,
  );
}

/** Questions without their answer keys: each option rebuilt from its id and text only. */
function learnerView(questions: readonly AttemptQuestion[]): LearnerQuestion[] {
  return questions.map((q) => ({
    id: q.id,
    questionText: q.questionText,
    questionType: q.questionType,
    points: q.points,
    options: q.options.map((o) => ({ id: String(o.id), text: String(o.text) })),
  }));
}

/** 404 unknown, 403 not enrolled or locked (chapter quiz: its chapter; module quiz: its module; final: everything before it). */
async function reachableQuiz(db: Db, userId: string, quizId: number): Promise<QuizRow> {
  const quiz = await findQuiz(db, quizId);
  if (!quiz) throw new NotFoundError('Quiz not found');
  if (!(await isEnrolled(db, userId, quiz.courseId))) throw new NotEnrolledError();
  const progress = await loadCourseProgress(db, userId, quiz.courseId);
  // The pre-test is open to every enrolled learner: it comes before everything else.
  const unlocked =
    quiz.id === progress.tree.preTestQuizId
      ? true
      : quiz.scope === 'final'
        ? progress.state.finalUnlocked
        : quiz.scope === 'chapter'
          ? // biome-ignore lint/style/noNonNullAssertion: a chapter-scoped quiz has a chapterId (a CHECK constraint).
            (progress.state.chapter.get(quiz.chapterId!)?.unlocked ?? false)
          : // biome-ignore lint/style/noNonNullAssertion: a module-scoped quiz has a moduleId (a CHECK constraint).
            (progress.state.module.get(quiz.moduleId!)?.unlocked ?? false);
  if (!unlocked) throw lockedError(quiz.scope === 'final' ? 'final exam' : 'quiz', progress);
  return quiz;
}

/** What an attempt kept at its start (both null for attempts from before migration 0008). */
type KeptAttempt = Pick<RawSelect<typeof quizAttempts>, 'questions' | 'passMark'>;

function view(
  quiz: QuizRow,
  attempt: Pick<AttemptRow, 'id' | 'attemptedAt' | 'expiresAt'> & { passMark?: number | null },
  number: number,
  questions: LearnerQuestion[],
): AttemptView {
  return {
    attemptId: attempt.id,
    quiz: {
      id: quiz.id,
      courseId: quiz.courseId,
      name: quiz.name,
      description: quiz.description,
      scope: quiz.scope,
      passMark: attempt.passMark ?? passMark(quiz),
      timeLimit: quiz.timeLimit,
      maxAttempts: quiz.maxAttempts,
    },
    attemptNumber: number,
    startedAt: new Date(attempt.attemptedAt),
    expiresAt: attempt.expiresAt === null ? null : new Date(attempt.expiresAt),
    questions,
  };
}

/**
 * Starts an attempt, or returns the learner's open one (not submitted, time not up) rather than
 * spending another. Every started attempt counts toward maxAttempts; attempts left open past
 * their time are closed as failed with score 0 first. Serialised per (learner, quiz) by a
 * transaction-scoped advisory lock, so concurrent starts cannot exceed maxAttempts. A new attempt
 * keeps the quiz's questions (answer keys included; with its bank draw and shuffled options,
 * quiz-draw.ts) and its pass mark as they are now: an author
 * changing the quiz later changes neither what this attempt shows nor how it is scored.
 */
export async function startAttempt(db: Db, userId: string, quizId: number, now: Date): Promise<{ created: boolean; attempt: AttemptView }> {
  const quiz = await reachableQuiz(db, userId, quizId);
  return inTransaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${userId}), ${quiz.id})`);
    await closeExpiredAttempts(tx, userId, quiz.id, now);
    const attempts = await typedRows<AttemptRow & KeptAttempt>(
      tx,
      sql`
      select id, attempted_at as "attemptedAt", expires_at as "expiresAt", submitted_at as "submittedAt", questions, pass_mark as "passMark"
      from quiz_attempts where user_id = ${userId} and quiz_id = ${quiz.id} order by id`,
    );
    const open = attempts.findIndex((a) => a.submittedAt === null);
    if (open >= 0) {
      const kept = attempts[open];
      return { created: false, attempt: view(quiz, kept, open + 1, learnerView(kept.questions ?? (await attemptQuestions(tx, quiz.id)))) };
    }
    const allowed = await attemptAllowance(tx, userId, quiz);
    if (attempts.length >= allowed) {
      throw new ConflictError(`No attempts left: this quiz allows ${allowed} attempt(s) and you have used ${attempts.length}`);
    }
    const expiresAt = quiz.timeLimit > 0 ? new Date(now.getTime() + quiz.timeLimit * 60_000) : null;
    const questions = await drawAttemptQuestions(tx, quiz.id);
    const [attempt] = await typedRows<Omit<AttemptRow, 'submittedAt'>>(
      tx,
      sql`
      insert into quiz_attempts (user_id, quiz_id, attempted_at, expires_at, questions, pass_mark)
      values (${userId}, ${quiz.id}, ${now.toISOString()}::timestamptz, ${expiresAt?.toISOString() ?? null}::timestamptz,
        ${JSON.stringify(questions)}::jsonb, ${passMark(quiz)})
      returning id, attempted_at as "attemptedAt", expires_at as "expiresAt", pass_mark as "passMark"`,
    );
    return { created: true, attempt: view(quiz, attempt, attempts.length + 1, learnerView(questions)) };
  });
}

/** Open attempts whose time (plus the grace) is up: closed as failed, score 0, when they ended. */
async function closeExpiredAttempts(db: Db, userId: string, quizId: number, now: Date) {
  await db.execute(sql`
    update quiz_attempts set submitted_at = expires_at, score = 0, passed = false
    where user_id = ${userId} and quiz_id = ${quizId} and submitted_at is null
      and expires_at is not null and expires_at + ${`${SUBMISSION_GRACE_MS} milliseconds`}::interval < ${now.toISOString()}::timestamptz`);
}

/** An attempt the learner may see again (the quiz page of an open attempt). 404 for anyone else's. */
export async function findOwnAttempt(db: Db, userId: string, attemptId: number) {
  const [row] = await typedRows<
    AttemptRow &
      KeptAttempt &
      Pick<RawSelect<typeof quizAttempts>, 'quizId' | 'passed' | 'answers'> & {
        /** numeric, read as float8. */
        score: number | null;
        number: number;
      }
  >(
    db,
    sql`
    select id, quiz_id as "quizId", attempted_at as "attemptedAt", expires_at as "expiresAt", submitted_at as "submittedAt",
      score::float8 as score, passed, questions, pass_mark as "passMark", answers,
      (select count(*)::int from quiz_attempts b where b.user_id = a.user_id and b.quiz_id = a.quiz_id and b.id <= a.id) as number
    from quiz_attempts a where id = ${attemptId} and user_id = ${userId}`,
  );
  if (!row) throw new NotFoundError('Quiz attempt not found');
  // biome-ignore lint/style/noNonNullAssertion: an attempt's quiz exists (a foreign key).
  const quiz = (await findQuiz(db, row.quizId))!;
  const questions = row.submittedAt === null ? learnerView(row.questions ?? (await attemptQuestions(db, quiz.id))) : [];
  return { attempt: row, view: view(quiz, row, row.number, questions), quiz };
}

export interface SubmissionResult {
  attemptId: number;
  quizId: number;
  courseId: number;
  score: number;
  passed: boolean;
  passMark: number;
  attemptNumber: number;
  attemptsLeft: number;
  /** Questions that counted toward the score (essay questions without a key do not). */
  scoredQuestions: number;
  submittedAt: Date;
  certificateCode: string | null;
}

const normalise = (text: string) => text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/** What a stored option says about being the right one, in any of the spellings older writers used. */
function optionIsRight(option: QuestionOption): boolean {
  const spelt = option as QuestionOption & Record<string, unknown>;
  return spelt.isCorrect === true || spelt.is_correct === true || spelt.correct === true;
}

/** The option ids of a `multiple_answer` answer: comma-separated, in any order, each once. */
export function chosenOptions(answer: string): Set<string> {
  return new Set(
    answer
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
}

/**
 * Points-weighted score, 0-100 with 2 decimals. A `multiple_answer` question is right when the
 * chosen option ids (comma-separated) are exactly its right ones; any other question with options
 * that mark a right one is scored by the one chosen option id; otherwise a question with a
 * correctAnswer is scored by the answer text compared normalised (Unicode NFC, trimmed, spaces
 * collapsed, case-insensitive); a question with neither (an essay) is not scored and does not
 * count toward the total. A quiz with nothing to score scores 100.
 */
export function scoreAnswers(
  questions: {
    id: number;
    points: number;
    questionType?: string;
    options: readonly QuestionOption[];
    correctAnswer: string | null;
  }[],
  answers: Record<string, string>,
): { score: number; scored: number } {
  let total = 0;
  let earned = 0;
  let scored = 0;
  for (const q of questions) {
    const answer = Object.hasOwn(answers, String(q.id)) ? answers[String(q.id)] : undefined;
    const right = q.options.filter(optionIsRight).map((o) => String(o.id));
    let isRight: boolean;
    if (right.length > 0 && q.questionType === 'multiple_answer') {
      const chosen = chosenOptions(answer ?? '');
      isRight = chosen.size === right.length && right.every((id) => chosen.has(id));
    } else if (right.length > 0) isRight = answer !== undefined && right.includes(answer);
    else if (q.correctAnswer !== null && q.correctAnswer.trim() !== '')
      isRight = answer !== undefined && normalise(answer) === normalise(q.correctAnswer);
    else continue;
    scored += 1;
    total += q.points;
    if (isRight) earned += q.points;
  }
  return { score: total === 0 ? 100 : Math.round((earned / total) * 10_000) / 100, scored };
}

/**
 * Submits an attempt once: scored here against the keys (which never leave the server), then
 * closed by `UPDATE ... WHERE submitted_at IS NULL`, so of two concurrent submissions one wins
 * and the other gets 409. Past expiresAt (+ the grace) the attempt closes as failed with score 0
 * and the answer is 409. Every submission checks the certificate (a passed final exam, a
 * post-test at its minimum, any quiz of a course whose chapters are all completed).
 */
export async function submitAttempt(
  db: Db,
  receipts: Receipts,
  userId: string,
  attemptId: number,
  answers: Record<string, string>,
  now: Date,
): Promise<SubmissionResult> {
  const { attempt, quiz } = await findOwnAttempt(db, userId, attemptId);
  if (attempt.submittedAt !== null) throw new ConflictError('This attempt was already submitted');
  if (attempt.expiresAt !== null && now.getTime() > new Date(attempt.expiresAt).getTime() + SUBMISSION_GRACE_MS) {
    await db.execute(sql`
      update quiz_attempts set submitted_at = ${now.toISOString()}::timestamptz, score = 0, passed = false
      where id = ${attemptId} and submitted_at is null`);
    throw new ConflictError('The time limit passed: this attempt is closed as failed with score 0');
  }
  // Scored with the questions the attempt was given (an author may have changed the quiz since).
  const questions = attempt.questions ?? (await attemptQuestions(db, quiz.id));
  const mark = attempt.passMark ?? passMark(quiz);
  // Only answers to this quiz's questions are kept.
  const kept: Record<string, string> = {};
  for (const q of questions) if (Object.hasOwn(answers, String(q.id))) kept[String(q.id)] = answers[String(q.id)];
  const { score, scored } = scoreAnswers(questions, kept);
  const passed = score >= mark;
  const updated = await db.execute(sql`
    update quiz_attempts set submitted_at = ${now.toISOString()}::timestamptz, score = ${score}, passed = ${passed}, answers = ${JSON.stringify(kept)}::jsonb
    where id = ${attemptId} and user_id = ${userId} and submitted_at is null
    returning id`);
  if (updated.rows.length === 0) throw new ConflictError('This attempt was already submitted');
  // A pre- or post-test attempt is credit evidence: its trail entry (evidence_log), when the quiz has the role.
  await db.execute(sql`insert into evidence_log (user_id, course_id, kind, detail, at)
    select ${userId}, q.course_id, q.evidence_role, ${JSON.stringify({ attemptId, score })}::jsonb, ${now.toISOString()}::timestamptz
    from quizzes q where q.id = ${quiz.id} and q.evidence_role is not null`);
  // A failed attempt checks too: a post-test scored at the credit's minimum may be below no pass mark.
  const certificateCode = await issueCertificateIfEarned(db, receipts, userId, quiz.courseId, now);
  const { rows: used } = await db.execute(
    sql`select count(*)::int as n from quiz_attempts where user_id = ${userId} and quiz_id = ${quiz.id}`,
  );
  const allowed = await attemptAllowance(db, userId, quiz);
  return {
    attemptId,
    quizId: quiz.id,
    courseId: quiz.courseId,
    score,
    passed,
    passMark: mark,
    attemptNumber: attempt.number,
    attemptsLeft: Math.max(0, allowed - (used[0] as { n: number }).n),
    scoredQuestions: scored,
    submittedAt: now,
    certificateCode,
  };
}

/** A learner's attempts at one quiz, oldest first (the quiz page lists them with their results). */
export async function listOwnAttempts(
  db: Db,
  userId: string,
  quizId: number,
): Promise<
  (Pick<AttemptRow, 'id' | 'submittedAt'> & Pick<RawSelect<typeof quizAttempts>, 'passed'> & { number: number; score: number | null })[]
> {
  // Raw: numbered by a window function; the score as float8.
  return typedRows(
    db,
    sql`
    select id, row_number() over (order by id)::int as number, score::float8 as score, passed, submitted_at as "submittedAt"
    from quiz_attempts where user_id = ${userId} and quiz_id = ${quizId} order by id`,
  );
}

/**
 * A quiz's questions without their keys, for a course's managers reading it as a learner would
 * (the preview): the learner's view of the questions, never isCorrect, correctAnswer or explanation.
 */
export async function previewQuestions(db: Db, quizId: number): Promise<LearnerQuestion[]> {
  return learnerView(await attemptQuestions(db, quizId));
}
