import { z } from 'zod';
import {
  DocumentAccreditationOut,
  documentAccreditations,
  EvaluationItemOut,
  EvidenceRoleOut,
  evaluationItems,
  evidenceRole,
  IgnoredParts,
  postTestMinScore,
} from './authoring-evidence.js';
import { DecimalText } from './course-creation.js';
import { ErrorResponse, ValidationErrorResponse } from './errors.js';
import { CREDIT_SCHEME, CREDIT_SCHEME_MESSAGE, DEFAULT_CREDIT_SCHEME, isChoiceKind, QUESTION_KINDS, USER_ROLES } from './lists.js';
import { boundedDateTime, idNumber, MAX_ID, text } from './text.js';

// Course authoring (docs/authoring.md): what an owner teacher, the admins of the course's institution, a
// super_admin or a bound partner may write, and the course as one JSON document. Input schemas
// validate (with defaults and trimming); the output schemas beside them carry no transforms,
// since they serialize the answers.

// ---------------------------------------------------------------------------------------------
// Limits: each refusal is a 400 (413 for a body over the size limit) that names the limit.

export const AUTHORING_LIMITS = {
  /** Modules of one course. */
  modulesPerCourse: 50,
  /** Chapters of one course, over all its modules. */
  chaptersPerCourse: 200,
  /** Characters of one chapter's Markdown content. */
  chapterContentChars: 100_000,
  /** Questions of one quiz. */
  questionsPerQuiz: 100,
  /** Options of one question. */
  optionsPerQuestion: 10,
} as const;

/** The document format written by export and read by import. */
export const COURSE_DOCUMENT_FORMAT = 'lms-course/1';

export const QUESTION_KINDS_DESCRIPTION =
  '`multiple_choice` (single choice: 2-10 options, exactly one with isCorrect), `multiple_answer` (choose all that ' +
  'apply: 2-10 options, at least one right; the learner answers with the ids of every right option, comma-separated), ' +
  '`true_false` (exactly two options, one right), `short_answer` (no options; `correctAnswer` is compared with the ' +
  'answer normalised: NFC, trimmed, spaces collapsed, case-insensitive), `essay` (no options, no correctAnswer; ' +
  'never scored and counts toward no total; `essayAnswer` is the model answer, an answer key). For the choice kinds ' +
  '`correctAnswer` may be left out; when given it must be the right option id(s), comma-separated.';

const OPTION_ID = /^[A-Za-z0-9_-]{1,16}$/;
/** A question bank tag: what a quiz's drawTag names. */
export const BANK_TAG = /^[\p{L}\p{N}_-]{1,40}$/u;
const name = () => text().trim().min(1).max(255);

export const QuestionOptionInput = z.strictObject({
  id: text().regex(OPTION_ID, 'must be 1-16 letters, digits, _ or -'),
  text: text().trim().min(1).max(2000),
  isCorrect: z.boolean().default(false),
});

/** The right option ids of a choice question, as `correctAnswer` stores them: comma-separated, in option order. */
export function rightOptionIds(options: readonly { id: string; isCorrect?: boolean }[]): string {
  return options
    .filter((o) => o.isCorrect === true)
    .map((o) => o.id)
    .join(',');
}

/** The fields of a question as written (QuestionInput; a bank question adds its tags). */
export const QUESTION_FIELDS = {
  id: idNumber().optional().describe('Keep the question with this id (replace); left out: a new question'),
  questionType: z.enum(QUESTION_KINDS),
  questionText: text().trim().min(1).max(10_000),
  points: z.number().int().min(0).max(1000).default(1),
  options: z
    .array(QuestionOptionInput)
    .max(AUTHORING_LIMITS.optionsPerQuestion, `at most ${AUTHORING_LIMITS.optionsPerQuestion} options per question`)
    .default([]),
  correctAnswer: text().trim().max(1000).nullable().default(null),
  essayAnswer: text().max(20_000).nullable().default(null),
  explanation: text().max(10_000).nullable().default(null),
};

/** The rules between a question's fields (its kind, options, keys). */
export function refineQuestion(
  q: { questionType: string; options: { id: string; isCorrect: boolean }[]; correctAnswer: string | null; essayAnswer: string | null },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const right = q.options.filter((o) => o.isCorrect).length;
  const ids = new Set(q.options.map((o) => o.id));
  if (ids.size !== q.options.length) issue(['options'], 'option ids must be different from each other');
  if (isChoiceKind(q.questionType)) {
    if (q.questionType === 'true_false' && q.options.length !== 2) issue(['options'], 'a true_false question has exactly 2 options');
    if (q.options.length < 2) issue(['options'], `a ${q.questionType} question needs at least 2 options`);
    if (q.questionType === 'multiple_answer' ? right < 1 : right !== 1) {
      issue(
        ['options'],
        `a ${q.questionType} question needs ${q.questionType === 'multiple_answer' ? 'at least one' : 'exactly one'} option with isCorrect`,
      );
    }
    if (q.correctAnswer !== null && q.correctAnswer !== rightOptionIds(q.options)) {
      issue(['correctAnswer'], `must be left out or name the right option(s): "${rightOptionIds(q.options)}"`);
    }
    if (q.essayAnswer !== null) issue(['essayAnswer'], `only an essay question has an essayAnswer`);
    return;
  }
  if (q.options.length > 0) issue(['options'], `a ${q.questionType} question has no options`);
  if (q.questionType === 'short_answer' && (q.correctAnswer === null || q.correctAnswer === '')) {
    issue(['correctAnswer'], 'a short_answer question needs its correctAnswer');
  }
  if (q.questionType === 'essay' && q.correctAnswer !== null) issue(['correctAnswer'], 'an essay is not scored: no correctAnswer');
  if (q.questionType === 'short_answer' && q.essayAnswer !== null) issue(['essayAnswer'], 'only an essay question has an essayAnswer');
}

export const QuestionInput = z.strictObject(QUESTION_FIELDS).superRefine(refineQuestion);

/** Questions of one course's bank, tags of one bank question. */
export const QUESTION_BANK_LIMITS = { questionsPerBank: 2000, tagsPerQuestion: 10 } as const;

/** A question of a course's question bank as written: a question with its tags. */
export const BankQuestionInput = z
  .strictObject({
    ...QUESTION_FIELDS,
    tags: z
      .array(text().trim().toLowerCase().regex(BANK_TAG, 'must be 1-40 letters, digits, _ or -'))
      .max(QUESTION_BANK_LIMITS.tagsPerQuestion, `at most ${QUESTION_BANK_LIMITS.tagsPerQuestion} tags`)
      .default([])
      .describe('Labels a quiz may draw from (its drawTag), stored lower case'),
  })
  .superRefine(refineQuestion);
export type BankQuestionInput = z.output<typeof BankQuestionInput>;
export type QuestionInput = z.output<typeof QuestionInput>;

/** A quiz as written: its settings and every question, in order. */
export const QuizInput = z.strictObject({
  id: idNumber().optional().describe('In a document: keep the quiz with this id; left out: a new quiz'),
  name: name(),
  description: text().max(10_000).default(''),
  quizType: text().trim().min(1).max(64).default('mixed').describe("A label shown with the quiz; the scorer reads each question's kind"),
  minimumScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe(
      'Pass mark of a chapter or module quiz (default 70). The final exam has none of its own: its pass mark is the ' +
        "course's minPassingScore. Given on the final exam's write (`PUT /api/courses/{id}/final-exam`) it sets the " +
        "course's minPassingScore; in a course document it must equal `course.minPassingScore` or be left out.",
    ),
  timeLimit: z.number().int().min(0).max(1440).default(30).describe('Minutes; 0: no limit'),
  maxAttempts: z.number().int().min(1).max(100).default(3),
  evidenceRole: evidenceRole().default(null),
  drawCount: z
    .number()
    .int()
    .min(1)
    .max(AUTHORING_LIMITS.questionsPerQuiz)
    .nullable()
    .default(null)
    .describe(
      "Questions drawn at random from the course's question bank for each attempt, after the quiz's own; null: none. " +
        'The draw is kept with the attempt (a reload shows the same questions, scoring uses exactly them)',
    ),
  drawTag: text()
    .trim()
    .toLowerCase()
    .regex(BANK_TAG, 'must be 1-40 letters, digits, _ or -')
    .nullable()
    .default(null)
    .describe('Draw only bank questions with this tag; null: any question of the bank'),
  shuffleOptions: z
    .boolean()
    .default(false)
    .describe("Each attempt shows a choice question's options in its own order (kept with the attempt; scored by option id)"),
  questions: z
    .array(QuestionInput)
    .max(
      AUTHORING_LIMITS.questionsPerQuiz,
      `at most ${AUTHORING_LIMITS.questionsPerQuiz} questions per quiz (the questions-per-quiz limit)`,
    )
    .default([]),
});
export type QuizInput = z.output<typeof QuizInput>;

const content = () =>
  text()
    .max(
      AUTHORING_LIMITS.chapterContentChars,
      `at most ${AUTHORING_LIMITS.chapterContentChars} characters of Markdown (the chapter content limit)`,
    )
    .describe(`Markdown, at most ${AUTHORING_LIMITS.chapterContentChars} characters; rendered and sanitized for learners' pages`);

/** A chapter's expected minutes (1..1440), or null: estimated from its text (docs/authoring.md, "Expected minutes"). */
const expectedMinutes = () =>
  z
    .number()
    .int()
    .min(1)
    .max(1440)
    .nullable()
    .describe(
      'Minutes a learner is expected to spend on the chapter (1-1440), or null: estimated from its text at 200 words a ' +
        "minute. A course whose credit requires a share of them waits for it before the chapter's completion",
    );

/** An https URL (a picture): no other scheme reaches a page. */
const httpsUrl = () =>
  text()
    .max(2048)
    .refine((v) => {
      try {
        return new URL(v).protocol === 'https:';
      } catch {
        return false;
      }
    }, 'must be an https URL');

const detailText = () => text().max(10_000).optional();
export const DetailSectionInput = z
  .strictObject({
    requirements: detailText(),
    applicationDeadline: boundedDateTime().optional(),
    prerequisites: detailText(),
    credits: detailText(),
    workload: detailText(),
    assessment: detailText(),
    totalCost: z.number().min(0).max(1e12).optional(),
    paymentOptions: detailText(),
    scholarships: detailText(),
    outcomes: detailText(),
    industries: detailText(),
    averageSalary: detailText(),
    testimonials: detailText(),
    facilities: detailText(),
    support: detailText(),
  })
  .meta({ id: 'DetailSectionBody', description: 'One section of a course page as an author writes it; every field optional.' });

/**
 * Every field of a course an author writes, each optional (a PATCH sends the ones it changes; a
 * document leaves out the ones it wants at their defaults). `isPublished` is not among them:
 * publishing is its own operation, with its checklist.
 */
const courseFieldShape = {
  name: name(),
  description: text().max(20_000),
  instructor: text().max(255),
  courseCode: text().max(64),
  type: z.enum(['self_paced', 'scheduled']),
  enrollmentType: z.enum(['code', 'open', 'approval']),
  enrollmentCode: text().trim().min(1).max(64).nullable().describe('What a learner types to enrol in a `code` course'),
  startDate: boundedDateTime().nullable(),
  endDate: boundedDateTime().nullable(),
  categoryId: idNumber().nullable(),
  eventCode: text().trim().min(1).max(64).nullable().describe('A published course with an eventCode is buyer-visible'),
  nilaiKum: z.number().min(0).max(999_999.99).nullable().describe('KUM/SKPK points a certificate of this course earns'),
  minPassingScore: z.number().int().min(0).max(100).describe('Pass mark of the final exam'),
  postTestMinScore: postTestMinScore(),
  evaluationItems: evaluationItems(),
  creditScheme: text()
    .regex(CREDIT_SCHEME, CREDIT_SCHEME_MESSAGE)
    .describe(
      `The credit scheme the course's points count in (default ${DEFAULT_CREDIT_SCHEME}): a member's credits are totalled per scheme`,
    ),
  certificateValidMonths: z
    .number()
    .int()
    .min(1)
    .max(600)
    .nullable()
    .describe(
      'Months a certificate of this course stays valid (1-600), or null: it does not expire. Applies to certificates issued after the change',
    ),
  coverPicture: httpsUrl().nullable(),
  previewMode: z.boolean(),
  isPurchasable: z.boolean(),
  price: DecimalText,
  priceNonMember: DecimalText.nullable(),
  priceMahasiswa: DecimalText.nullable(),
  currency: text().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. IDR'),
  admissions: DetailSectionInput.nullable(),
  academics: DetailSectionInput.nullable(),
  tuitionAndFinancing: DetailSectionInput.nullable(),
  careers: DetailSectionInput.nullable(),
  studentExperience: DetailSectionInput.nullable(),
};

const datesInOrder = <T extends { startDate?: string | null; endDate?: string | null }>(b: T) =>
  !b.startDate || !b.endDate || Date.parse(b.endDate) >= Date.parse(b.startDate);

/** `PATCH /api/courses/{id}`: the fields to change; unknown fields are refused. */
export const CoursePatchBody = z
  .strictObject(courseFieldShape)
  .partial()
  .refine(datesInOrder, { message: 'must not be before startDate', path: ['endDate'] })
  .refine((b) => Object.keys(b).length > 0, 'name at least one field to change')
  .meta({ id: 'CoursePatchBody' });
export type CoursePatchBody = z.output<typeof CoursePatchBody>;

export const CourseDocumentFields = z
  .strictObject(courseFieldShape)
  .partial()
  .extend({
    name: name(),
    institutionId: idNumber().describe('The institution the course belongs to; a replace cannot change it'),
    teacherId: text().min(1).max(64).describe('The owner: an active teacher of the institution'),
  })
  .refine(datesInOrder, { message: 'must not be before startDate', path: ['endDate'] });
export type CourseDocumentFields = z.output<typeof CourseDocumentFields>;

export const ChapterInput = z.strictObject({
  id: idNumber().optional().describe('Keep the chapter with this id (replace); left out: a new chapter'),
  name: name(),
  content: content().default(''),
  expectedMinutes: expectedMinutes().default(null),
  quiz: QuizInput.nullable().default(null).describe("The chapter's quiz: passing it opens the next chapter"),
});

export const ModuleInput = z.strictObject({
  id: idNumber().optional().describe('Keep the module with this id (replace); left out: a new module'),
  name: name(),
  description: text().max(10_000).default(''),
  quiz: QuizInput.nullable().default(null).describe("The module's quiz: passing it opens the next module"),
  chapters: z
    .array(ChapterInput)
    .max(
      AUTHORING_LIMITS.chaptersPerCourse,
      `at most ${AUTHORING_LIMITS.chaptersPerCourse} chapters per course (the chapters-per-course limit)`,
    )
    .default([]),
});

/**
 * A whole course as one document: its fields, its modules with their chapters and quizzes in
 * order, its final exam. Export writes it with every id; import reads it whole before writing
 * anything. In a replace, an item with an id keeps that row (and what learners did with it), an
 * item without one is new, and a row the document leaves out is deleted.
 */
export const CourseDocument = z
  .strictObject({
    format: z.literal(COURSE_DOCUMENT_FORMAT).describe(`Always "${COURSE_DOCUMENT_FORMAT}"`),
    course: CourseDocumentFields,
    modules: z
      .array(ModuleInput)
      .max(
        AUTHORING_LIMITS.modulesPerCourse,
        `at most ${AUTHORING_LIMITS.modulesPerCourse} modules per course (the modules-per-course limit)`,
      )
      .default([]),
    finalExam: QuizInput.nullable()
      .default(null)
      .describe('Passing it (at minPassingScore) with every chapter completed earns the certificate'),
    accreditations: documentAccreditations(),
    questionBank: z
      .array(BankQuestionInput)
      .max(QUESTION_BANK_LIMITS.questionsPerBank, `at most ${QUESTION_BANK_LIMITS.questionsPerBank} questions per bank`)
      .optional()
      .describe("The course's question bank (what quizzes with a drawCount draw from); left out: a replace keeps the bank as it is"),
  })
  .superRefine((doc, ctx) => {
    const chapters = doc.modules.reduce((n, m) => n + m.chapters.length, 0);
    if (chapters > AUTHORING_LIMITS.chaptersPerCourse) {
      ctx.addIssue({
        code: 'custom',
        path: ['modules'],
        message: `${chapters} chapters: at most ${AUTHORING_LIMITS.chaptersPerCourse} chapters per course (the chapters-per-course limit)`,
      });
    }
  })
  .meta({ id: 'CourseDocumentBody' });
export type CourseDocument = z.output<typeof CourseDocument>;

// ---------------------------------------------------------------------------------------------
// Bodies of the item writes

export const ModuleBody = z.strictObject({ name: name(), description: text().max(10_000).default('') }).meta({ id: 'ModuleBody' });
export const ModulePatchBody = z
  .strictObject({ name: name(), description: text().max(10_000) })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'name at least one field to change')
  .meta({ id: 'ModulePatchBody' });
export const ChapterBody = z
  .strictObject({ name: name(), content: content().default(''), expectedMinutes: expectedMinutes().default(null) })
  .meta({ id: 'ChapterBody' });
export const ChapterPatchBody = z
  .strictObject({ name: name(), content: content(), expectedMinutes: expectedMinutes() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'name at least one field to change')
  .meta({ id: 'ChapterPatchBody' });
export const QuizBody = QuizInput.omit({ id: true }).meta({ id: 'QuizBody' });

/** `PUT /api/courses/{id}/outline`: every module and chapter of the course, once each, in their new order. */
export const OutlineBody = z
  .strictObject({
    modules: z
      .array(z.strictObject({ id: idNumber(), chapterIds: z.array(idNumber()).max(AUTHORING_LIMITS.chaptersPerCourse) }))
      .max(AUTHORING_LIMITS.modulesPerCourse),
  })
  .meta({ id: 'OutlineBody' });
export type OutlineBody = z.output<typeof OutlineBody>;

/** `POST /api/course-documents`: a new course from a document. */
export const ImportBody = CourseDocument;

export const AuthoringIdParams = z.object({ id: z.coerce.number().int().min(1).max(MAX_ID).describe('The id') });

// ---------------------------------------------------------------------------------------------
// Answers (no transforms: they serialize)

const dateTime = z.iso.datetime({ offset: true });
/** The version of the course's own fields, as the answer and its `ETag` give it. */
const VERSION_OUT = z
  .number()
  .int()
  .describe("The version of the course's fields (also the answer's `ETag`, quoted): send it back in `If-Match` to save only over it");
const DetailSectionOut = z.record(z.string(), z.union([z.string(), z.number()]));

export const QuestionOut = z
  .object({
    id: z.number().int(),
    questionType: z.string(),
    questionText: z.string(),
    points: z.number().int(),
    options: z.array(z.object({ id: z.string(), text: z.string(), isCorrect: z.boolean() })),
    correctAnswer: z.string().nullable(),
    essayAnswer: z.string().nullable(),
    explanation: z.string().nullable(),
  })
  .meta({ id: 'AuthoredQuestion', description: 'A question with its answer key (only ever sent to those who may author the course)' });

export const BankQuestionOut = QuestionOut.extend({ tags: z.array(z.string()) }).meta({
  id: 'BankQuestion',
  description: 'A question of the bank with its answer key (only ever sent to those who may author the course)',
});

export const QuizOut = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    quizType: z.string(),
    minimumScore: z.number().int().describe("The pass mark it is graded by: the final exam's is the course's minPassingScore"),
    timeLimit: z.number().int(),
    maxAttempts: z.number().int(),
    evidenceRole: EvidenceRoleOut,
    drawCount: z.number().int().nullable().describe("Questions drawn from the course's bank for each attempt, or null"),
    drawTag: z.string().nullable(),
    shuffleOptions: z.boolean(),
    questions: z.array(QuestionOut),
  })
  .meta({ id: 'AuthoredQuiz' });
export type QuizOut = z.output<typeof QuizOut>;

export const ChapterOut = z
  .object({
    id: z.number().int(),
    name: z.string(),
    content: z.string(),
    expectedMinutes: z.number().int().nullable().describe("The author's expected minutes, or null: estimated from the text"),
    quiz: QuizOut.nullable(),
  })
  .meta({ id: 'AuthoredChapter' });

export const ModuleOut = z
  .object({ id: z.number().int(), name: z.string(), description: z.string(), quiz: QuizOut.nullable(), chapters: z.array(ChapterOut) })
  .meta({ id: 'AuthoredModule' });

export const CourseFieldsOut = z
  .object({
    institutionId: z.number().int(),
    teacherId: z.string(),
    name: z.string(),
    description: z.string(),
    instructor: z.string(),
    courseCode: z.string(),
    type: z.string(),
    enrollmentType: z.string(),
    enrollmentCode: z.string().nullable(),
    startDate: dateTime.nullable(),
    endDate: dateTime.nullable(),
    categoryId: z.number().int().nullable(),
    eventCode: z.string().nullable(),
    nilaiKum: z.number().nullable(),
    minPassingScore: z.number().int(),
    postTestMinScore: z.number().int().nullable(),
    evaluationItems: z.array(EvaluationItemOut).nullable(),
    creditScheme: z.string(),
    certificateValidMonths: z.number().int().nullable(),
    coverPicture: z.string().nullable(),
    previewMode: z.boolean(),
    isPurchasable: z.boolean(),
    price: z.string(),
    priceNonMember: z.string().nullable(),
    priceMahasiswa: z.string().nullable(),
    currency: z.string(),
    admissions: DetailSectionOut.nullable(),
    academics: DetailSectionOut.nullable(),
    tuitionAndFinancing: DetailSectionOut.nullable(),
    careers: DetailSectionOut.nullable(),
    studentExperience: DetailSectionOut.nullable(),
  })
  .meta({ id: 'AuthoredCourseFields' });
export type CourseFieldsOut = z.output<typeof CourseFieldsOut>;

export const CourseDocumentOut = z
  .object({
    format: z.literal(COURSE_DOCUMENT_FORMAT),
    course: CourseFieldsOut,
    modules: z.array(ModuleOut),
    finalExam: QuizOut.nullable(),
    accreditations: z.array(DocumentAccreditationOut),
    questionBank: z.array(BankQuestionOut),
  })
  .meta({ id: 'CourseDocument', description: 'The whole course, answer keys included: what import reads back' });
export type CourseDocumentOut = z.output<typeof CourseDocumentOut>;

export const CourseDocumentResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    isPublished: z.boolean(),
    version: VERSION_OUT,
    document: CourseDocumentOut,
    ignored: IgnoredParts,
  })
  .meta({ id: 'CourseDocumentResponse' });

export const CourseFieldsResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    isPublished: z.boolean(),
    version: VERSION_OUT,
    course: CourseFieldsOut,
  })
  .meta({ id: 'CourseFieldsResponse' });

export const ModuleResponse = z
  .object({
    success: z.literal(true),
    module: z.object({
      id: z.number().int(),
      courseId: z.number().int(),
      name: z.string(),
      description: z.string(),
      orderIndex: z.number().int(),
    }),
  })
  .meta({ id: 'ModuleResponse' });

export const AuthoredChapterResponse = z
  .object({
    success: z.literal(true),
    chapter: z.object({
      id: z.number().int(),
      courseId: z.number().int(),
      moduleId: z.number().int(),
      name: z.string(),
      content: z.string(),
      expectedMinutes: z.number().int().nullable().describe("The author's expected minutes, or null: estimated from the text"),
      orderIndex: z.number().int(),
      version: z.number().int().describe("The chapter's version (also its `ETag`): send it back in `If-Match` to save only over it"),
    }),
  })
  .meta({ id: 'AuthoredChapterResponse' });

export const QuizResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    version: z.number().int().describe("The quiz's version (also its `ETag`): send it back in `If-Match` to save only over it"),
    quiz: QuizOut,
  })
  .meta({ id: 'AuthoredQuizResponse' });

export const OutlineResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    modules: z.array(
      z.object({ id: z.number().int(), name: z.string(), chapters: z.array(z.object({ id: z.number().int(), name: z.string() })) }),
    ),
  })
  .meta({ id: 'OutlineResponse' });

export const DeletedResponse = z
  .object({ success: z.literal(true), deleted: z.object({ kind: z.enum(['module', 'chapter', 'quiz']), id: z.number().int() }) })
  .meta({ id: 'DeletedResponse' });

export const PUBLISH_RULES = ['chapters', 'quizzes', 'prices', 'dates', 'eventCode', 'enrollmentCode'] as const;
export const ChecklistItem = z
  .object({
    rule: z.enum(PUBLISH_RULES),
    ok: z.boolean(),
    message: z.string().describe('What the rule asks and, when it fails, what is wrong'),
  })
  .meta({ id: 'ChecklistItem' });
export type ChecklistItem = z.output<typeof ChecklistItem>;

export const PUBLISH_CHECKLIST_DESCRIPTION =
  'The checklist a course must pass to be published: `chapters`: at least one chapter; `quizzes`: every quiz has at ' +
  'least one scored (non-essay) question, every choice question a right option, every short answer its ' +
  'correctAnswer; `prices`: a purchasable course has a price above 0, a free one (isPurchasable false) has price 0 ' +
  'and no member or student price; `dates`: the end is not before the start; `eventCode`: set (a published course ' +
  'is buyer-visible only with one); `enrollmentCode`: set when enrollmentType is `code`.';

export const PublicationResponse = z
  .object({ success: z.literal(true), courseId: z.number().int(), isPublished: z.boolean(), checklist: z.array(ChecklistItem) })
  .meta({ id: 'PublicationResponse' });

export const PublishRefusedResponse = z
  .object({ success: z.literal(false), error: z.string(), checklist: z.array(ChecklistItem) })
  .meta({ id: 'PublishRefusedResponse', description: 'The course is not ready: the checklist says what fails' });

export const AuthoringEvent = z
  .object({
    id: z.number().int(),
    at: dateTime,
    action: z
      .string()
      .describe(
        'e.g. `course.update`, `chapter.create`, `quiz.replace`, `course.publish`; the first event of every course is its ' +
          "creation: `course.create` (a partner's `POST /api/courses`, the studio's new-course form) or `course.import`",
      ),
    targetId: z.number().int().nullable().describe('The module, chapter or quiz written; null for the course itself'),
    credential: z.enum(['session', 'partner-token']),
    actor: z.object({
      userId: z.string().nullable(),
      name: z.string().nullable().describe("The person's name today (null when the account is gone, or for a partner)"),
      role: z.enum(USER_ROLES).nullable(),
      partnerIssuer: z.string().nullable(),
      partnerSubject: z.string().nullable().describe("The token's `sub`: the partner's calling system"),
      tokenId: z.string().nullable().describe("The token's `jti`"),
    }),
    changes: z.array(z.unknown()).describe('`[{path, from?, to?}]`; a long text appears as its length and SHA-256'),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'AuthoringEvent' });
export type AuthoringEvent = z.output<typeof AuthoringEvent>;

export const HistoryQuery = z.object({
  before: z.coerce.number().int().min(1).optional().describe("Events older than this event id (the previous page's nextBefore)"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const HistoryResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    events: z.array(AuthoringEvent).describe('Newest first'),
    nextBefore: z.number().int().nullable().describe('Pass as `before` for older events; null at the end'),
  })
  .meta({ id: 'HistoryResponse' });

/** A stale `If-Match`: the 409 names the current ETag. */
export const StaleVersionResponse = z
  .object({
    success: z.literal(false),
    error: z.string(),
    etag: z.string().describe('The current ETag (also the `ETag` header): read again, then save with it in `If-Match`'),
  })
  .meta({ id: 'StaleVersionResponse' });

/** The error answers every authoring route may give (the gateway adds its own). */
export const AUTHORING_ERRORS = {
  400: ValidationErrorResponse.or(ErrorResponse).meta({
    description:
      'A body or parameter that breaks the contract or a limit (the message and `details` name the field and the limit; at most 20 problems are named)',
  }),
  401: ErrorResponse.meta({ description: 'No or an invalid session; for a partner, a missing, invalid, expired or replayed bearer token' }),
  403: ErrorResponse.meta({
    description:
      'Not allowed to author this course (a buyer-visible course; a draft answers 404), a session whose role never ' +
      'authors (a student), an API key, the CSRF check, or a partner call that did not come through the gateway; ' +
      'each refused before the body is read',
  }),
  404: ErrorResponse.meta({ description: 'No such course, module, chapter or quiz, or a draft the caller may not author' }),
  // The stale-version shape first: a union answers with the first that fits, and ErrorResponse would drop `etag`.
  409: StaleVersionResponse.or(ErrorResponse).meta({
    description:
      'The write would lose what learners did (a chapter with completions, a quiz with attempts, or a module holding ' +
      'one), a second quiz where there is one, the first request with this Idempotency-Key still holds it (with ' +
      '`Retry-After`), or an `If-Match` version that is no longer the current one (someone saved since: the answer ' +
      'names both versions and its `ETag` is the current one; read it again, then save)',
  }),
  413: ErrorResponse.meta({ description: 'Body over the authoring body limit (the message names it)' }),
  415: ErrorResponse.meta({ description: 'Body is not application/json' }),
  422: ErrorResponse.meta({ description: 'An Idempotency-Key reused with another body' }),
  429: ErrorResponse.meta({
    description:
      'Over the authoring budget of the person or the partner (AUTHORING_RATE_LIMIT_PER_MINUTE requests in any sliding minute), with `Retry-After`',
  }),
} as const;
