import type { CourseDocument, EvidenceRole, QuizInput } from '@lms/contracts';
import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ConflictError, type FieldProblem, invalidBody } from '../../errors.js';

// A quiz's evidence role (docs/authoring.md, "Pre-test, post-test and evaluation"): at most one
// pre-test and one post-test per course (the unique index quizzes_one_evidence_role_per_course
// holds it; these checks turn a clash into the documented 409 or 400 before it reaches the index),
// and the final exam is never the pre-test (it opens only after every chapter, the pre-test before any).

const FINAL_NOT_PRE_TEST = 'the final exam cannot be the pre-test (the pre-test opens the course; the final exam closes it)';

/** The 409 of a role another quiz of the course holds, naming that quiz (pages say it in their words). */
export class EvidenceRoleTakenError extends ConflictError {
  constructor(
    readonly other: { id: number; name: string; scope: string },
    role: EvidenceRole,
  ) {
    super(
      `quiz ${other.id} "${other.name}" (a ${other.scope} quiz) is already the course's ${role}: a course has one ${role}; ` +
        `set that quiz's evidenceRole to null first`,
    );
  }
}

/**
 * 409 when another quiz of the course already has `role` (naming it), 400 for a pre-test final
 * exam. `quizId`: the quiz being written (null for a new one). Runs under the course's lock.
 */
export async function assertEvidenceRoleFree(
  tx: Db,
  courseId: number,
  quizId: number | null,
  scope: 'chapter' | 'module' | 'final',
  role: EvidenceRole | null,
): Promise<void> {
  if (role === null) return;
  if (scope === 'final' && role === 'pre_test') throw invalidBody([{ path: 'evidenceRole', message: FINAL_NOT_PRE_TEST }]);
  const [other] = await typedRows<{ id: number; name: string; scope: string }>(
    tx,
    sql`select id, name, scope::text as scope from quizzes
      where course_id = ${courseId} and evidence_role = ${role} and id <> ${quizId ?? 0} order by id limit 1`,
  );
  if (other) throw new EvidenceRoleTakenError(other, role);
}

/** 400 naming each place when a document gives a role twice (both places named) or makes its final exam the pre-test. */
export function assertDocumentEvidenceRoles(doc: CourseDocument): void {
  const places: { path: string; quiz: QuizInput }[] = [];
  doc.modules.forEach((m, i) => {
    if (m.quiz) places.push({ path: `modules.${i}.quiz`, quiz: m.quiz });
    m.chapters.forEach((ch, j) => {
      if (ch.quiz) places.push({ path: `modules.${i}.chapters.${j}.quiz`, quiz: ch.quiz });
    });
  });
  const problems: FieldProblem[] = [];
  if (doc.finalExam) {
    if (doc.finalExam.evidenceRole === 'pre_test') problems.push({ path: 'finalExam.evidenceRole', message: FINAL_NOT_PRE_TEST });
    places.push({ path: 'finalExam', quiz: doc.finalExam });
  }
  const first = new Map<EvidenceRole, { path: string; quiz: QuizInput }>();
  for (const place of places) {
    const role = place.quiz.evidenceRole;
    if (role === null) continue;
    const earlier = first.get(role);
    if (!earlier) {
      first.set(role, place);
      continue;
    }
    problems.push({
      path: `${place.path}.evidenceRole`,
      message: `${earlier.path} ("${earlier.quiz.name}") is already the course's ${role}: a course has one ${role}`,
    });
  }
  if (problems.length > 0) throw invalidBody(problems);
}
