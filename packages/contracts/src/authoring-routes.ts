import type { z } from 'zod';
import {
  AUTHORING_LIMITS,
  AuthoredChapterResponse,
  AuthoringIdParams,
  ChapterBody,
  ChapterPatchBody,
  CourseDocument,
  CourseDocumentResponse,
  CourseFieldsResponse,
  CoursePatchBody,
  DeletedResponse,
  HistoryQuery,
  HistoryResponse,
  ImportBody,
  ModuleBody,
  ModulePatchBody,
  ModuleResponse,
  OutlineBody,
  OutlineResponse,
  PUBLISH_CHECKLIST_DESCRIPTION,
  PublicationResponse,
  PublishRefusedResponse,
  QUESTION_KINDS_DESCRIPTION,
  QuizBody,
  QUESTION_BANK_LIMITS,
  QuizResponse,
} from './authoring.js';
import { ErrorResponse, ValidationErrorResponse } from './errors.js';
import {
  IMPORT_LIMITS,
  QuestionBankBody,
  QuestionBankResponse,
  QuestionImportBody,
  QuestionImportRefusedResponse,
  QuestionImportResponse,
} from './question-bank.js';

/**
 * The authoring routes, described once: the LMS registers each with its handler, the gateway
 * forwards each to the partner's LMS, and both document them from this table (same paths, same
 * bodies, same answers).
 */
export interface AuthoringRouteSpec {
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's form: `/api/chapters/:id`. */
  url: string;
  summary: string;
  description: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  success: { status: 200 | 201; schema: z.ZodType };
  /** Answers of this route beyond AUTHORING_ERRORS (a publish refusal). */
  extra?: Record<number, z.ZodType>;
  /**
   * What the route's optional `If-Match` checks: the version of the course's fields, the whole
   * document's digest, a chapter's or a quiz's version (AUTHORING_VERSIONING). Routes without it
   * refuse an `If-Match` (400).
   */
  versioned?: 'course' | 'document' | 'chapter' | 'quiz';
}

/** What a versioned route's description says about `If-Match` and `ETag`. */
export const AUTHORING_VERSIONING =
  'Optional `If-Match: "<version>"` (the `ETag` of the last answer, or the `version` it carries; `W/` accepted, `*` ' +
  'checks nothing): the write is made only if what it edits is still at that version, otherwise a 409 naming both ' +
  'versions, with the current `ETag`, and nothing is written. Without `If-Match` the last save wins. The answer ' +
  'carries the new `version` and `ETag`. The studio pages check the same versions.';

/** The document routes' `ETag` is a digest of the whole document, so any change to any part of the course moves it. */
export const DOCUMENT_VERSIONING =
  'Optional `If-Match` with the `ETag` of the last export or replace (a digest of the whole document: any write to ' +
  'the course, its modules, chapters or quizzes changes it): the replace is made only over that document, otherwise ' +
  'a 409 with the current `ETag` and nothing is written. Without `If-Match` the last save wins. The answer carries ' +
  "the new `ETag`, and `version`, the version of the course's own fields.";

const LIMITS =
  `Limits: ${AUTHORING_LIMITS.modulesPerCourse} modules and ${AUTHORING_LIMITS.chaptersPerCourse} chapters per course, ` +
  `${AUTHORING_LIMITS.chapterContentChars} characters of content per chapter, ${AUTHORING_LIMITS.questionsPerQuiz} questions ` +
  `per quiz, ${AUTHORING_LIMITS.optionsPerQuestion} options per question; each a 400 naming the limit.`;

const LEARNERS =
  'What learners did is never lost: a chapter with completions, a quiz with attempts and a module holding one cannot ' +
  'be deleted (409 naming them); their texts and settings may change. A started attempt keeps the questions and the ' +
  'pass mark it began with; submitted attempts keep their score; certificates stay valid.';

const ROUTES: readonly AuthoringRouteSpec[] = [
  {
    operation: 'importCourse',
    method: 'POST',
    url: '/api/course-documents',
    summary: 'Create a course from a course document (import)',
    description:
      'The document is validated whole before anything is written: any error is a 400 naming every wrong field and ' +
      'nothing is created. `course.institutionId` must be one the caller may author for and `course.teacherId` an ' +
      'active teacher of it. Ids in the document are ignored (everything is new). The course is created unpublished. ' +
      `${LIMITS} Question kinds: ${QUESTION_KINDS_DESCRIPTION}`,
    body: ImportBody,
    success: { status: 201, schema: CourseDocumentResponse },
  },
  {
    operation: 'exportCourse',
    method: 'GET',
    url: '/api/courses/:id/document',
    summary: "Export a course as one document (the author's view, answer keys included)",
    description: 'The whole course with every id: what PUT reads back. Only those who may author the course.',
    params: AuthoringIdParams,
    success: { status: 200, schema: CourseDocumentResponse },
  },
  {
    operation: 'replaceCourse',
    versioned: 'document',
    method: 'PUT',
    url: '/api/courses/:id/document',
    summary: 'Replace a course with a course document (import over it)',
    description:
      'All or nothing: validated whole first (400 naming every wrong field), then written in one transaction. An item ' +
      "with an id keeps that row; without one it is new; the course's rows the document leaves out are deleted. An id " +
      `of another course is a 400. ${LEARNERS} \`course.institutionId\` must stay the same. Publishing is not part of ` +
      `the document. ${LIMITS}`,
    params: AuthoringIdParams,
    body: CourseDocument,
    success: { status: 200, schema: CourseDocumentResponse },
  },
  {
    operation: 'updateCourse',
    versioned: 'course',
    method: 'PATCH',
    url: '/api/courses/:id',
    summary: "Change a course's fields",
    description:
      'Only the fields sent change. Ownership (`teacherId`) moves with a document (PUT .../document). The publishing ' +
      'checklist is checked when publishing, not on each edit.',
    params: AuthoringIdParams,
    body: CoursePatchBody,
    success: { status: 200, schema: CourseFieldsResponse },
  },
  {
    operation: 'createModule',
    method: 'POST',
    url: '/api/courses/:id/modules',
    summary: 'Add a module at the end of a course',
    description: LIMITS,
    params: AuthoringIdParams,
    body: ModuleBody,
    success: { status: 201, schema: ModuleResponse },
  },
  {
    operation: 'updateModule',
    method: 'PATCH',
    url: '/api/modules/:id',
    summary: "Change a module's name or description",
    description: 'Order and place are changed with PUT /api/courses/{id}/outline.',
    params: AuthoringIdParams,
    body: ModulePatchBody,
    success: { status: 200, schema: ModuleResponse },
  },
  {
    operation: 'deleteModule',
    method: 'DELETE',
    url: '/api/modules/:id',
    summary: 'Delete a module with its chapters and quizzes',
    description: LEARNERS,
    params: AuthoringIdParams,
    success: { status: 200, schema: DeletedResponse },
  },
  {
    operation: 'createChapter',
    method: 'POST',
    url: '/api/modules/:id/chapters',
    summary: 'Add a chapter at the end of a module',
    description: `Content is Markdown, stored as written. ${LIMITS}`,
    params: AuthoringIdParams,
    body: ChapterBody,
    success: { status: 201, schema: AuthoredChapterResponse },
  },
  {
    operation: 'updateChapter',
    versioned: 'chapter',
    method: 'PATCH',
    url: '/api/chapters/:id',
    summary: "Change a chapter's name or content",
    description: `Content is Markdown, stored as written and sanitized when a page shows it. ${LIMITS}`,
    params: AuthoringIdParams,
    body: ChapterPatchBody,
    success: { status: 200, schema: AuthoredChapterResponse },
  },
  {
    operation: 'deleteChapter',
    method: 'DELETE',
    url: '/api/chapters/:id',
    summary: 'Delete a chapter and its quiz',
    description: LEARNERS,
    params: AuthoringIdParams,
    success: { status: 200, schema: DeletedResponse },
  },
  {
    operation: 'reorderOutline',
    method: 'PUT',
    url: '/api/courses/:id/outline',
    summary: 'Reorder modules and chapters, or move chapters between modules',
    description: 'Names every module of the course and every chapter, each exactly once, in the new order; anything else is a 400.',
    params: AuthoringIdParams,
    body: OutlineBody,
    success: { status: 200, schema: OutlineResponse },
  },
  ...(['chapter', 'module'] as const).flatMap((parent): AuthoringRouteSpec[] => [
    {
      operation: `put${parent === 'chapter' ? 'Chapter' : 'Module'}Quiz`,
      versioned: 'quiz',
      method: 'PUT',
      url: `/api/${parent}s/:id/quiz`,
      summary: `Create or replace the quiz of a ${parent}`,
      description:
        `A ${parent} has at most one quiz. The body is the whole quiz: questions with an id keep that question, ` +
        `others are new, and questions left out are deleted. ${LEARNERS} Question kinds: ${QUESTION_KINDS_DESCRIPTION} ${LIMITS}`,
      params: AuthoringIdParams,
      body: QuizBody,
      success: { status: 200, schema: QuizResponse },
    },
    {
      operation: `delete${parent === 'chapter' ? 'Chapter' : 'Module'}Quiz`,
      method: 'DELETE',
      url: `/api/${parent}s/:id/quiz`,
      summary: `Delete the quiz of a ${parent}`,
      description: LEARNERS,
      params: AuthoringIdParams,
      success: { status: 200, schema: DeletedResponse },
    },
  ]),
  {
    operation: 'putFinalExam',
    versioned: 'quiz',
    method: 'PUT',
    url: '/api/courses/:id/final-exam',
    summary: 'Create or replace the final exam of a course',
    description:
      "Its pass mark is the course's minPassingScore: a `minimumScore` in the body sets the course's (recorded " +
      "as a change of the course, whose version moves); left out, the course's stays. The body is the whole quiz, as " +
      "for a chapter's quiz. " +
      `${LEARNERS} Question kinds: ${QUESTION_KINDS_DESCRIPTION} ${LIMITS}`,
    params: AuthoringIdParams,
    body: QuizBody,
    success: { status: 200, schema: QuizResponse },
  },
  {
    operation: 'deleteFinalExam',
    method: 'DELETE',
    url: '/api/courses/:id/final-exam',
    summary: 'Delete the final exam of a course',
    description: LEARNERS,
    params: AuthoringIdParams,
    success: { status: 200, schema: DeletedResponse },
  },
  {
    operation: 'publicationChecklist',
    method: 'GET',
    url: '/api/courses/:id/publication',
    summary: 'Whether a course is published, and its publishing checklist',
    description: PUBLISH_CHECKLIST_DESCRIPTION,
    params: AuthoringIdParams,
    success: { status: 200, schema: PublicationResponse },
  },
  {
    operation: 'publishCourse',
    method: 'POST',
    url: '/api/courses/:id/publication',
    summary: 'Publish a course',
    description:
      `Refused with 409 and the checklist when any rule fails. ${PUBLISH_CHECKLIST_DESCRIPTION} Publishing a ` +
      'published course changes nothing (200).',
    params: AuthoringIdParams,
    success: { status: 200, schema: PublicationResponse },
    extra: { 409: PublishRefusedResponse },
  },
  {
    operation: 'unpublishCourse',
    method: 'DELETE',
    url: '/api/courses/:id/publication',
    summary: 'Unpublish a course',
    description:
      'The course leaves the catalog (API keys, students) at once on this instance and within CATALOG_CACHE_MS on the ' +
      'others; enrolled learners keep their access to it, their progress and their certificates.',
    params: AuthoringIdParams,
    success: { status: 200, schema: PublicationResponse },
  },
  {
    operation: 'courseHistory',
    method: 'GET',
    url: '/api/courses/:id/history',
    summary: 'The history of a course: every authoring write, newest first',
    description:
      'Who (the person and their role, or the partner with its token `sub` and `jti`), through which credential, when, ' +
      'and what changed. Readable by those who may author the course.',
    params: AuthoringIdParams,
    querystring: HistoryQuery,
    success: { status: 200, schema: HistoryResponse },
  },
];

const IMPORT_FORMATS_DESCRIPTION =
  '**gift** (Moodle): `{=right ~wrong}` single choice, `{~%50%a ~%50%b ~%-100%c}` several right, `{T}`/`{F}` ' +
  '(TRUE/FALSE) true/false, `{=text}` short answer; `::title::`, `//` comments, `#feedback` (general `####`: the ' +
  'explanation), `$CATEGORY:` (its last part becomes the tag), escapes `\\~ \\= \\# \\{ \\} \\:`; numeric, matching, essay and ' +
  'several accepted short answers are refused per question. **aiken**: the question, options `A.` or `A)`, ' +
  '`ANSWER: B`. **csv**: the first line names the columns, any order: `question`, `answer` (required), `type` ' +
  '(multiple_choice, multiple_answer, true_false, short_answer), `a`..`j` (options), `points`, `explanation`, ' +
  '`tags`; `answer` is the right letter(s), true/false (benar/salah), or the text; comma or semicolon separated, ' +
  'UTF-8 with or without BOM, as Excel saves it. ' +
  `Bounds: ${IMPORT_LIMITS.chars} characters, ${IMPORT_LIMITS.lines} lines, ${IMPORT_LIMITS.questions} questions; ` +
  'any problem refuses the whole import (400 naming each problem with its line and a code), nothing is written.';

const BANK_ROUTES: readonly AuthoringRouteSpec[] = [
  {
    operation: 'questionBank',
    method: 'GET',
    url: '/api/courses/:id/question-bank',
    summary: "A course's question bank (answer keys included)",
    description:
      'The questions a quiz with a `drawCount` draws from for each attempt (only those tagged with its `drawTag`, ' +
      'when it has one). Only those who may author the course.',
    params: AuthoringIdParams,
    success: { status: 200, schema: QuestionBankResponse },
  },
  {
    operation: 'replaceQuestionBank',
    method: 'PUT',
    url: '/api/courses/:id/question-bank',
    summary: "Replace a course's question bank",
    description:
      'The body is the whole bank, in order: a question with an id keeps that question of this bank (an id of any other ' +
      'is a 400), one without is new, the bank questions left out are deleted. Started attempts keep the questions ' +
      `they drew. At most ${QUESTION_BANK_LIMITS.questionsPerBank} questions, ${QUESTION_BANK_LIMITS.tagsPerQuestion} tags each. ` +
      `Question kinds: ${QUESTION_KINDS_DESCRIPTION}`,
    params: AuthoringIdParams,
    body: QuestionBankBody,
    success: { status: 200, schema: QuestionBankResponse },
  },
  {
    operation: 'importQuestions',
    method: 'POST',
    url: '/api/courses/:id/question-imports',
    summary: "Import questions (GIFT, Aiken, CSV) into a course's bank or one of its quizzes",
    description:
      `Into the bank (\`quizId\` null, at its end) or at the end of a quiz of the course (its ${AUTHORING_LIMITS.questionsPerQuiz} ` +
      `questions limit holds; the quiz's version moves), in one transaction. ${IMPORT_FORMATS_DESCRIPTION}`,
    params: AuthoringIdParams,
    body: QuestionImportBody,
    success: { status: 201, schema: QuestionImportResponse },
    extra: {
      400: QuestionImportRefusedResponse.or(ValidationErrorResponse)
        .or(ErrorResponse)
        .meta({ description: 'The text has problems (each with its line and code; nothing imported), or the body breaks the contract' }),
    },
  },
];

/** Every authoring route; a versioned one says how its `If-Match` works. */
export const AUTHORING_ROUTES: readonly AuthoringRouteSpec[] = [...ROUTES, ...BANK_ROUTES].map((spec) =>
  spec.versioned === undefined
    ? spec
    : { ...spec, description: `${spec.description} ${spec.versioned === 'document' ? DOCUMENT_VERSIONING : AUTHORING_VERSIONING}` },
);
