import type { CourseDocument, QuizInput } from '@lms/contracts';
import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';
import { invalidBody } from '../../errors.js';
import type { CourseRow } from './authors.js';
import { passMarkOfDocument } from './document-course.js';
import { DEFAULT_MINIMUM_SCORE, deleteRows, lockUnheld, type QuizRow, writeChapters, writeModules, writeQuizzes } from './rows.js';

// A document's tree (modules, chapters, quizzes) against the course's rows: the ids it has now,
// the check that a document's ids belong to it, and the write of the tree over it (kept rows
// updated and moved, new ones inserted, left-out ones deleted), with the counts of each.

/** The ids a course's rows have now, with where each hangs. */
export interface ExistingTree {
  modules: Set<number>;
  chapters: Set<number>;
  quizzes: Set<number>;
  questions: Set<number>;
}

export function emptyTree(): ExistingTree {
  return { modules: new Set(), chapters: new Set(), quizzes: new Set(), questions: new Set() };
}

export async function existingTree(tx: Db, courseId: number): Promise<ExistingTree> {
  const { rows } = await tx.execute(sql`
    select
      coalesce((select json_agg(id) from modules where course_id = ${courseId}), '[]') as modules,
      coalesce((select json_agg(id) from chapters where course_id = ${courseId}), '[]') as chapters,
      coalesce((select json_agg(id) from quizzes where course_id = ${courseId}), '[]') as quizzes,
      coalesce((select json_agg(qu.id) from questions qu join quizzes q on q.id = qu.quiz_id where q.course_id = ${courseId}), '[]') as questions`);
  const r = rows[0] as Record<keyof ExistingTree, number[]>;
  return { modules: new Set(r.modules), chapters: new Set(r.chapters), quizzes: new Set(r.quizzes), questions: new Set(r.questions) };
}

/** Every id of the document names a row of this course, once; otherwise one 400 naming each place. */
export function assertIdsBelong(doc: CourseDocument, existing: ExistingTree): void {
  const problems: { path: string; message: string }[] = [];
  const seen = { modules: new Set<number>(), chapters: new Set<number>(), quizzes: new Set<number>(), questions: new Set<number>() };
  const check = (kind: keyof ExistingTree, id: number | undefined, path: string) => {
    if (id === undefined) return;
    const noun = kind.slice(0, -1);
    if (!existing[kind].has(id)) problems.push({ path, message: `${noun} ${id} is not a ${noun} of this course` });
    else if (seen[kind].has(id)) problems.push({ path, message: `${noun} ${id} appears twice` });
    seen[kind].add(id);
  };
  const checkQuiz = (quiz: QuizInput | null, path: string) => {
    if (!quiz) return;
    check('quizzes', quiz.id, `${path}.id`);
    for (const [i, q] of quiz.questions.entries()) check('questions', q.id, `${path}.questions.${i}.id`);
  };
  doc.modules.forEach((m, i) => {
    check('modules', m.id, `modules.${i}.id`);
    checkQuiz(m.quiz, `modules.${i}.quiz`);
    m.chapters.forEach((ch, j) => {
      check('chapters', ch.id, `modules.${i}.chapters.${j}.id`);
      checkQuiz(ch.quiz, `modules.${i}.chapters.${j}.quiz`);
    });
  });
  checkQuiz(doc.finalExam, 'finalExam');
  if (problems.length > 0) {
    throw invalidBody(problems);
  }
}

/** The document with every id taken out (an import as a new course makes every row anew). */
export function withoutIds(doc: CourseDocument): CourseDocument {
  const quiz = (q: QuizInput | null) => (q ? { ...q, id: undefined, questions: q.questions.map((x) => ({ ...x, id: undefined })) } : null);
  return {
    ...doc,
    modules: doc.modules.map((m) => ({
      ...m,
      id: undefined,
      quiz: quiz(m.quiz),
      chapters: m.chapters.map((ch) => ({ ...ch, id: undefined, quiz: quiz(ch.quiz) })),
    })),
    finalExam: quiz(doc.finalExam),
  };
}

export type Counts = Record<'modules' | 'chapters' | 'quizzes', { created: number; updated: number; deleted: number }>;

export function countsSummary(counts: Counts) {
  return Object.fromEntries(Object.entries(counts).map(([k, c]) => [k, c]));
}

/**
 * Writes a document's tree over the course's (`existing`: its rows now): kept rows updated and
 * moved, new rows inserted, left-out rows deleted unless learners hold them. Quizzes the document
 * drops are deleted before the others are written (a new final exam needs the old one gone), and
 * chapters and modules last (a kept quiz or chapter moves out of them first).
 */
export async function writeTree(tx: Db, course: CourseRow, doc: CourseDocument, existing: ExistingTree): Promise<Counts> {
  const inDoc = { modules: new Set<number>(), chapters: new Set<number>(), quizzes: new Set<number>() };
  const quizzesOf = (q: QuizInput | null) => (q?.id !== undefined ? [q.id] : []);
  for (const m of doc.modules) {
    if (m.id !== undefined) inDoc.modules.add(m.id);
    for (const id of quizzesOf(m.quiz)) inDoc.quizzes.add(id);
    for (const ch of m.chapters) {
      if (ch.id !== undefined) inDoc.chapters.add(ch.id);
      for (const id of quizzesOf(ch.quiz)) inDoc.quizzes.add(id);
    }
  }
  for (const id of quizzesOf(doc.finalExam)) inDoc.quizzes.add(id);
  const gone = (kind: 'modules' | 'chapters' | 'quizzes') => [...existing[kind]].filter((id) => !inDoc[kind].has(id));
  const doomed = { modules: gone('modules'), chapters: gone('chapters'), quizzes: gone('quizzes') };

  // Learners' records first: nothing is written if any would be lost (409 naming every one).
  await lockUnheld(tx, course.id, { quizIds: doomed.quizzes, chapterIds: doomed.chapters, moduleIds: doomed.modules });
  await deleteRows(tx, course.id, { quizIds: doomed.quizzes });
  const moduleIds = await writeModules(
    tx,
    course.id,
    doc.modules.map((m, i) => ({ id: m.id, name: m.name, description: m.description, orderIndex: i })),
  );
  const chapterPlaces = doc.modules.flatMap((m, i) => m.chapters.map((ch, j) => ({ ch, moduleId: moduleIds[i], orderIndex: j })));
  const chapterIds = await writeChapters(
    tx,
    course.id,
    chapterPlaces.map(({ ch, moduleId, orderIndex }) => ({
      id: ch.id,
      moduleId,
      name: ch.name,
      content: ch.content,
      expectedMinutes: ch.expectedMinutes,
      orderIndex,
    })),
  );
  const quizRows: QuizRow[] = [];
  // The final exam's pass mark is the course's (rules/pass-mark.ts); assertFinalPassMark checked the document's.
  const asRow = (q: QuizInput, parent: QuizRow['parent']): QuizRow => ({
    ...q,
    parent,
    minimumScore: parent.scope === 'final' ? passMarkOfDocument(doc) : (q.minimumScore ?? DEFAULT_MINIMUM_SCORE),
  });
  doc.modules.forEach((m, i) => {
    if (m.quiz) quizRows.push(asRow(m.quiz, { scope: 'module', moduleId: moduleIds[i] }));
  });
  chapterPlaces.forEach(({ ch }, k) => {
    if (ch.quiz) quizRows.push(asRow(ch.quiz, { scope: 'chapter', chapterId: chapterIds[k] }));
  });
  if (doc.finalExam) quizRows.push(asRow(doc.finalExam, { scope: 'final' }));
  await writeQuizzes(tx, course.id, quizRows);
  await deleteRows(tx, course.id, { chapterIds: doomed.chapters, moduleIds: doomed.modules });

  const created = (kind: 'modules' | 'chapters' | 'quizzes', total: number) => total - inDoc[kind].size;
  return {
    modules: { created: created('modules', doc.modules.length), updated: inDoc.modules.size, deleted: doomed.modules.length },
    chapters: { created: created('chapters', chapterPlaces.length), updated: inDoc.chapters.size, deleted: doomed.chapters.length },
    quizzes: { created: created('quizzes', quizRows.length), updated: inDoc.quizzes.size, deleted: doomed.quizzes.length },
  };
}
