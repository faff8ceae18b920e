import {
  AUTHORING_LIMITS,
  type BankQuestionInput,
  QUESTION_BANK_LIMITS,
  type QuestionBankBody,
  type QuestionImportBody,
  type QuestionOut,
} from '@lms/contracts';
import { type Db, inTransaction, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { BadRequestError, invalidBody } from '../../errors.js';
import { type AuthoringContext, findAuthoredCourse, lockAuthoredCourse } from './authors.js';
import { recordChange } from './history.js';
import { questionRow } from './rows.js';
import { type ImportProblem, IMPORT_LIMITS, parseQuestions } from './question-import/index.js';

// A course's question bank (docs/authoring.md, "Question bank"): read, replaced whole, or grown
// by an import (GIFT, Aiken, CSV), which may instead add to one quiz of the course. Each write
// runs in the caller's transaction with the course locked, and records itself in the history.

export type BankQuestionOut = z.output<typeof QuestionOut> & { tags: string[] };

/** 400: the import's text has problems; nothing was written. `problems` carry line and code for the pages. */
export class ImportRefusedError extends BadRequestError {
  constructor(readonly problems: readonly ImportProblem[]) {
    const shown = problems.slice(0, IMPORT_LIMITS.problems);
    super(
      `The import was refused, nothing was written: ${shown.map((p) => (p.line > 0 ? `line ${p.line}: ${p.message}` : p.message)).join('; ')}`,
      shown.map((p) => ({ path: p.line > 0 ? `text.line${p.line}` : 'text', message: p.message })),
    );
  }
}

/** An import that would pass the bank's or the quiz's limit of questions. */
const overLimit = (limit: number, message: string) =>
  new ImportRefusedError([{ line: 0, code: 'too_many_questions', detail: String(limit), message }]);

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/** The bank of a course, in order, as authors read it. */
export async function bankOf(db: Db, courseId: number): Promise<BankQuestionOut[]> {
  return typedRows<BankQuestionOut>(
    db,
    sql`
    select id, question_type as "questionType", question_text as "questionText", points,
      coalesce((select json_agg(json_build_object('id', o->>'id', 'text', o->>'text',
          'isCorrect', coalesce((o->>'isCorrect')::boolean, false)) order by n)
        from jsonb_array_elements(options) with ordinality as x(o, n)), '[]'::json) as options,
      correct_answer as "correctAnswer", essay_answer as "essayAnswer", explanation, tags
    from bank_questions where course_id = ${courseId} order by order_index, id`,
  );
}

/** The bank a course's authors may read. */
export async function readQuestionBank(db: Db, ctx: AuthoringContext, courseId: number) {
  const course = await findAuthoredCourse(db, ctx.author, { course: courseId });
  return { courseId: course.id, questions: await bankOf(db, course.id) };
}

/** A bank question's row as written: a quiz question's columns (its answer key beside the options) and its tags. */
const rowOf = (q: Omit<BankQuestionInput, 'id'> & { id?: number }, orderIndex: number) => ({
  ...questionRow(q, orderIndex),
  tags: [...new Set(q.tags)],
});

/** Inserts bank questions (one statement), returning their ids in order. */
async function insertBank(tx: Db, courseId: number, rows: ReturnType<typeof rowOf>[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await typedRows<{ id: number; order_index: number }>(
    tx,
    sql`
    insert into bank_questions (course_id, order_index, question_type, question_text, points, options, correct_answer, essay_answer,
      explanation, tags)
    select ${courseId}, v."orderIndex", v."questionType", v."questionText", v.points, v.options, v."correctAnswer", v."essayAnswer",
      v.explanation, array(select jsonb_array_elements_text(v.tags))
    from jsonb_to_recordset(${json(rows)}) as v("orderIndex" int, "questionType" text, "questionText" text, points int, options jsonb,
      "correctAnswer" text, "essayAnswer" text, explanation text, tags jsonb)
    returning id, order_index`,
  );
  const byOrder = new Map(inserted.map((r) => [r.order_index, r.id]));
  return rows.map((r) => byOrder.get(r.orderIndex) as number);
}

/**
 * The bank of a course becomes exactly `questions`, in order (an id keeps that bank question of
 * this course, one without is new, the others are deleted): a 400 naming `${path}.{i}.id` for an
 * id of another bank or one given twice. Started attempts keep the questions they drew.
 */
export async function writeBank(tx: Db, courseId: number, questions: readonly BankQuestionInput[], path = 'questions'): Promise<void> {
  const own = new Set(
    (await typedRows<{ id: number }>(tx, sql`select id from bank_questions where course_id = ${courseId}`)).map((r) => r.id),
  );
  const seen = new Set<number>();
  const problems = questions.flatMap((q, i) => {
    if (q.id === undefined) return [];
    const at = `${path}.${i}.id`;
    if (!own.has(q.id)) return [{ path: at, message: `question ${q.id} is not a question of this bank` }];
    if (seen.has(q.id)) return [{ path: at, message: `question ${q.id} appears twice` }];
    seen.add(q.id);
    return [];
  });
  if (problems.length > 0) throw invalidBody(problems);
  const rows = questions.map(rowOf);
  await tx.execute(sql`delete from bank_questions where course_id = ${courseId} and not (id = any(${`{${[...seen].join(',')}}`}::int[]))`);
  const kept = rows.filter((r) => r.id !== undefined);
  if (kept.length > 0) {
    await tx.execute(sql`
      update bank_questions b set order_index = v."orderIndex", question_type = v."questionType", question_text = v."questionText",
        points = v.points, options = v.options, correct_answer = v."correctAnswer", essay_answer = v."essayAnswer",
        explanation = v.explanation, tags = array(select jsonb_array_elements_text(v.tags)), updated_at = now()
      from jsonb_to_recordset(${json(kept)}) as v(id int, "orderIndex" int, "questionType" text, "questionText" text, points int,
        options jsonb, "correctAnswer" text, "essayAnswer" text, explanation text, tags jsonb)
      where b.id = v.id and b.course_id = ${courseId}`);
  }
  await insertBank(
    tx,
    courseId,
    rows.filter((r) => r.id === undefined),
  );
}

/** Replaces the bank with exactly `body.questions` (writeBank), recorded in the history. */
export async function replaceQuestionBank(db: Db, ctx: AuthoringContext, courseId: number, body: QuestionBankBody) {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    const before = await bankOf(tx, course.id);
    await writeBank(tx, course.id, body.questions);
    const after = await bankOf(tx, course.id);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await recordChange(tx, ctx, {
        courseId: course.id,
        action: 'bank.replace',
        changes: [{ path: 'questionBank', from: { questions: before.length }, to: { questions: after.length } }],
      });
    }
    return { courseId: course.id, questions: after };
  });
}

/**
 * Imports questions into the bank (at its end, with the body's tags added to each) or at the end
 * of one quiz of the course: all of them or, on any problem of the text, none (ImportRefusedError).
 */
export async function importQuestions(db: Db, ctx: AuthoringContext, courseId: number, body: QuestionImportBody) {
  const parsed = parseQuestions(body.format, body.text);
  if (parsed.problems.length > 0) throw new ImportRefusedError(parsed.problems);
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    if (body.quizId === null) {
      const [{ n, next }] = await typedRows<{ n: number; next: number }>(
        tx,
        sql`select count(*)::int as n, coalesce(max(order_index) + 1, 0)::int as next from bank_questions where course_id = ${course.id}`,
      );
      if (n + parsed.questions.length > QUESTION_BANK_LIMITS.questionsPerBank) {
        throw overLimit(
          QUESTION_BANK_LIMITS.questionsPerBank,
          `the bank holds ${n} questions: ${parsed.questions.length} more would pass its limit of ${QUESTION_BANK_LIMITS.questionsPerBank}`,
        );
      }
      const rows = parsed.questions.map(({ line: _l, tags, ...q }, i) =>
        rowOf({ ...q, tags: [...new Set([...body.tags, ...tags])].slice(0, QUESTION_BANK_LIMITS.tagsPerQuestion) }, next + i),
      );
      const ids = await insertBank(tx, course.id, rows);
      await recordChange(tx, ctx, {
        courseId: course.id,
        action: 'bank.import',
        changes: [{ path: 'questionBank', to: { format: body.format, imported: ids.length } }],
      });
      return { courseId: course.id, quizId: null, imported: ids.length, questionIds: ids };
    }
    const [quiz] = await typedRows<{ n: number; next: number }>(
      tx,
      sql`select (select count(*)::int from questions where quiz_id = q.id) as n,
        (select coalesce(max(order_index) + 1, 0)::int from questions where quiz_id = q.id) as next
      from quizzes q where q.id = ${body.quizId} and q.course_id = ${course.id}`,
    );
    if (!quiz) throw invalidBody([{ path: 'quizId', message: `quiz ${body.quizId} is not a quiz of this course` }]);
    if (quiz.n + parsed.questions.length > AUTHORING_LIMITS.questionsPerQuiz) {
      throw overLimit(
        AUTHORING_LIMITS.questionsPerQuiz,
        `the quiz holds ${quiz.n} questions: ${parsed.questions.length} more would pass the limit of ${AUTHORING_LIMITS.questionsPerQuiz} per quiz`,
      );
    }
    const rows = parsed.questions.map(({ line: _l, tags: _t, ...q }, i) => rowOf({ ...q, tags: [] }, quiz.next + i));
    const inserted = await typedRows<{ id: number; order_index: number }>(
      tx,
      sql`
      insert into questions (quiz_id, order_index, question_type, question_text, points, options, correct_answer, essay_answer, explanation)
      select ${body.quizId}, v."orderIndex", v."questionType", v."questionText", v.points, v.options, v."correctAnswer", v."essayAnswer",
        v.explanation
      from jsonb_to_recordset(${json(rows)}) as v("orderIndex" int, "questionType" text, "questionText" text, points int, options jsonb,
        "correctAnswer" text, "essayAnswer" text, explanation text)
      returning id, order_index`,
    );
    const byOrder = new Map(inserted.map((r) => [r.order_index, r.id]));
    const ids = rows.map((r) => byOrder.get(r.orderIndex) as number);
    await tx.execute(sql`update quizzes set version = version + 1, updated_at = now() where id = ${body.quizId}`);
    await recordChange(tx, ctx, {
      courseId: course.id,
      action: 'quiz.import',
      targetId: body.quizId,
      changes: [{ path: `quizzes[${body.quizId}].questions`, to: { format: body.format, imported: ids.length } }],
    });
    return { courseId: course.id, quizId: body.quizId, imported: ids.length, questionIds: ids };
  });
}
