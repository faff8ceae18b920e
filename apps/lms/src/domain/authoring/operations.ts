import type { QuizInput } from '@lms/contracts';
import type { Db } from '@lms/db';
import type { AuthoringContext, AuthoringTarget } from './authors.js';
import { exportCourse, importNewCourse, replaceCourse, updateCourseFields } from './document.js';
import { readHistory } from './history.js';
import {
  createChapter,
  createModule,
  deleteChapter,
  deleteModule,
  deleteQuiz,
  putQuiz,
  type QuizPlace,
  reorderOutline,
  updateChapter,
  updateModule,
} from './items.js';
import { publishCourse, readPublication, unpublishCourse } from './publication.js';
import { importQuestions, readQuestionBank, replaceQuestionBank } from './question-bank.js';

// The authoring operations, by the name AUTHORING_ROUTES (packages/contracts) gives each: one
// function of this module each, given the id its path names. Both doors that write courses run
// them from this table, the JSON API (routes/authoring) and the studio's forms (pages/studio), so
// a write means the same whichever way it came in.

/** Where a quiz stands, as the studio's URLs say it: a chapter's, a module's, or the course's final exam. */
export const QUIZ_SCOPES = ['chapter', 'module', 'final'] as const;
export type QuizScope = (typeof QUIZ_SCOPES)[number];

/** The quiz of a scope and an id (a chapter's, a module's, or the final exam of the course `id`). */
export function quizPlaceOf(scope: QuizScope, id: number): QuizPlace {
  return scope === 'chapter' ? { chapter: id } : scope === 'module' ? { module: id } : { finalOf: id };
}

/** What a quiz's scope and id name, for the author's right on its course. */
export function quizTargetOf(scope: QuizScope, id: number): AuthoringTarget {
  return scope === 'chapter' ? { chapter: id } : scope === 'module' ? { module: id } : { course: id };
}

type QuizBody = Omit<QuizInput, 'id'>;
const putAt = (scope: QuizScope) => (db: Db, ctx: AuthoringContext, id: number, body: QuizBody, version?: number) =>
  putQuiz(db, ctx, quizPlaceOf(scope, id), body, version);
const deleteAt = (scope: QuizScope) => (db: Db, ctx: AuthoringContext, id: number) => deleteQuiz(db, ctx, quizPlaceOf(scope, id));

/** Every authoring operation, by its AUTHORING_ROUTES name: (db, ctx, the path's id, the body, the version). */
export const AUTHORING_OPERATIONS = {
  importCourse: importNewCourse,
  exportCourse,
  replaceCourse,
  updateCourse: updateCourseFields,
  createModule,
  updateModule,
  deleteModule,
  createChapter,
  updateChapter,
  deleteChapter,
  reorderOutline,
  putChapterQuiz: putAt('chapter'),
  deleteChapterQuiz: deleteAt('chapter'),
  putModuleQuiz: putAt('module'),
  deleteModuleQuiz: deleteAt('module'),
  putFinalExam: putAt('final'),
  deleteFinalExam: deleteAt('final'),
  publicationChecklist: readPublication,
  publishCourse,
  unpublishCourse,
  courseHistory: readHistory,
  questionBank: readQuestionBank,
  replaceQuestionBank,
  importQuestions,
} as const;

export type AuthoringOperation = keyof typeof AUTHORING_OPERATIONS;

/** The operations that write a quiz of each scope (the studio's quiz editor runs these). */
export const QUIZ_OPERATIONS = {
  chapter: { put: 'putChapterQuiz', remove: 'deleteChapterQuiz' },
  module: { put: 'putModuleQuiz', remove: 'deleteModuleQuiz' },
  final: { put: 'putFinalExam', remove: 'deleteFinalExam' },
} as const satisfies Record<QuizScope, { put: AuthoringOperation; remove: AuthoringOperation }>;
