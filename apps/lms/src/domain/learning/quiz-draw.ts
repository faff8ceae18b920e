import { randomInt } from 'node:crypto';
import { type AttemptQuestion, type bankQuestions, type Db, type questions, type RawSelect, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';

// What a new attempt is given (docs/authoring.md, "Question bank"): the quiz's own
// questions, in order, then drawCount questions drawn at random from its course's bank (those with
// drawTag only, when it names one), and with shuffleOptions each choice question's options in an
// order of its own. All of it is kept with the attempt (quiz_attempts.questions), so a reload
// shows the same questions and the scorer uses exactly these, by option id, never by position.

type Kept = Pick<RawSelect<typeof questions>, keyof AttemptQuestion>;

/** A random order of `items` (Fisher-Yates with crypto's randomInt): a copy. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The questions a new attempt at `quizId` keeps (answer keys included: they stay on the server). */
export async function drawAttemptQuestions(db: Db, quizId: number): Promise<AttemptQuestion[]> {
  const [quiz] = await typedRows<{ courseId: number; drawCount: number | null; drawTag: string | null; shuffleOptions: boolean }>(
    db,
    sql`select course_id as "courseId", draw_count as "drawCount", draw_tag as "drawTag", shuffle_options as "shuffleOptions"
      from quizzes where id = ${quizId}`,
  );
  const own = await typedRows<Kept>(
    db,
    sql`
    select id, question_text as "questionText", question_type as "questionType", points, options, correct_answer as "correctAnswer"
    from questions where quiz_id = ${quizId} order by order_index, id`,
  );
  const drawn =
    quiz?.drawCount == null
      ? []
      : await typedRows<Pick<RawSelect<typeof bankQuestions>, keyof AttemptQuestion>>(
          db,
          sql`
          select id, question_text as "questionText", question_type as "questionType", points, options, correct_answer as "correctAnswer"
          from bank_questions where course_id = ${quiz.courseId} and (${quiz.drawTag}::text is null or ${quiz.drawTag}::text = any(tags))
          order by random() limit ${quiz.drawCount}`,
        );
  const all: AttemptQuestion[] = [...own, ...drawn];
  return quiz?.shuffleOptions ? all.map((q) => ({ ...q, options: shuffled(q.options) })) : all;
}
