import { type AttemptQuestion, type Db, type QuestionOption, type RawSelect, typedRows, type questions as questionsTable } from '@lms/db';
import { sql } from 'drizzle-orm';
import { chosenOptions, scoreAnswers } from './quiz-attempts.js';

/**
 * When a learner sees the right answers and explanations of a quiz: once they have passed it, or
 * once they have no attempt left, so the keys never help an attempt still to come. Never for a
 * final exam: its questions appear only inside an open attempt (docs/architecture.md, "Who reads
 * what"), and a grant of more attempts would otherwise follow a look at its keys. The JSON
 * submission answer never carries them (the spec).
 */
export function mayReview(quiz: { scope: 'chapter' | 'module' | 'final' }, standing: { passed: boolean; attemptsLeft: number }): boolean {
  if (quiz.scope === 'final') return false;
  return standing.passed || standing.attemptsLeft <= 0;
}

export interface ReviewedQuestion {
  text: string;
  /** The learner's answer as they saw it (option texts, or their text). */
  given: string | null;
  /** The right answer as text; null for an essay without a key (not scored). */
  right: string | null;
  correct: boolean | null;
  explanation: string | null;
}

/** An option as an attempt kept it: QuestionOption, or an older document's spelling of its key. */
type KeptOption = QuestionOption & { is_correct?: boolean; correct?: boolean };

const isRight = (o: KeptOption) => o.isCorrect === true || o.is_correct === true || o.correct === true;

/**
 * The review of one submitted attempt: its questions as the attempt kept them (answer keys
 * included), the learner's answers, and the explanations the questions carry today. Only for
 * pages that checked mayReview first.
 */
export async function reviewAttempt(
  db: Db,
  questions: readonly AttemptQuestion[],
  answers: Record<string, string> | null,
): Promise<ReviewedQuestion[]> {
  const ids = questions.map((q) => q.id);
  const rows =
    ids.length === 0
      ? []
      : await typedRows<Pick<RawSelect<typeof questionsTable>, 'id' | 'explanation'>>(
          db,
          sql`select id, explanation from questions where id in ${sql`(${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`}`,
        );
  const explanations = new Map(rows.map((r) => [r.id, r.explanation]));
  return questions.map((q) => {
    const answer = answers && Object.hasOwn(answers, String(q.id)) ? answers[String(q.id)] : null;
    const options: readonly KeptOption[] = q.options;
    const rightOptions = options.filter(isRight);
    const textOf = (id: string) => String(options.find((o) => String(o.id) === id)?.text ?? id);
    // Right or wrong as the score counted it (the scoring rule's one home).
    const { score, scored } = scoreAnswers([q], answer === null ? {} : { [String(q.id)]: answer });
    const correct = scored === 0 ? null : score === 100;
    let right: string | null = null;
    let given: string | null = answer;
    if (rightOptions.length > 0) {
      right = rightOptions.map((o) => String(o.text)).join(', ');
      const chosen = [...chosenOptions(answer ?? '')];
      given = chosen.length > 0 ? chosen.map(textOf).join(', ') : null;
    } else if (q.correctAnswer !== null && q.correctAnswer.trim() !== '') right = q.correctAnswer;
    return { text: q.questionText, given, right, correct, explanation: explanations.get(q.id) ?? null };
  });
}
