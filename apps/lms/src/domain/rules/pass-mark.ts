import { type SQL, sql } from 'drizzle-orm';

// A quiz's pass mark (docs/architecture.md, "The final exam's pass mark"): the final exam's is its
// course's minPassingScore, any other quiz's its own minimumScore. One rule for grading (a new
// attempt keeps the mark it started with), the learner's pages, the catalog, the authoring
// document and the studio, and so for the certificate, which a passed final exam earns. Before it,
// the studio wrote a final exam's own minimumScore (80) that nothing read, while the learner was
// told and graded by the course's 70 (issue 40, finding 11).

/** The pass mark a quiz is graded by. */
export function passMarkOf(quiz: { scope: string; minimumScore: number }, course: { minPassingScore: number }): number {
  return quiz.scope === 'final' ? course.minPassingScore : quiz.minimumScore;
}

/** passMarkOf as SQL text, for a quizzes row under `alias` (its course read by id); `alias` is ours, never input. */
export function passMarkExpression(alias: string): string {
  return `(case when ${alias}.scope = 'final' then (select pm.min_passing_score from courses pm where pm.id = ${alias}.course_id) else ${alias}.minimum_score end)`;
}

/** passMarkExpression as an SQL fragment. */
export function passMarkSql(alias: string): SQL {
  return sql.raw(passMarkExpression(alias));
}
