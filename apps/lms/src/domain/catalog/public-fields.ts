import { questions } from '@lms/db';
import { asc, type SQLWrapper, sql } from 'drizzle-orm';

// What the catalog's readers (list summaries, course detail) share: the public face of a
// question, and two small shapes of result rows.

/**
 * A question's options without answer keys, built in SQL so the keys never leave the database:
 * only `id` and `text` of each option, in stored order. `options` is the jsonb column to read.
 */
export function publicOptionsOf(options: SQLWrapper) {
  return sql<{ id: string; text: string }[]>`coalesce((
  select jsonb_agg(jsonb_build_object('id', coalesce(e.o->>'id', ''), 'text', coalesce(e.o->>'text', '')) order by e.n)
  from jsonb_array_elements(${options}) with ordinality as e(o, n)
), '[]'::jsonb)`;
}

/** The columns of a question everyone may see: no answer key is selected (the options are rebuilt without them). */
export const publicQuestionColumns = {
  id: questions.id,
  quizId: questions.quizId,
  questionText: questions.questionText,
  questionType: questions.questionType,
  options: publicOptionsOf(questions.options),
  orderIndex: questions.orderIndex,
  points: questions.points,
};

/** Questions in quiz order, then their own order. */
export const questionOrder = [asc(questions.quizId), asc(questions.orderIndex), asc(questions.id)];

/** A course's Category object, or null when it has none (a left join gives nulls). */
export function categoryOf(id: number | null, code: string | null, name: string | null) {
  return id !== null && code !== null && name !== null ? { id, code, name } : null;
}

export function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
