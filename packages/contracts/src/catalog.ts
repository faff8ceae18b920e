import { z } from 'zod';
import { documentedAs, LATEST_DATE_TIME, MAX_ID, queryBoolean, queryWholeNumber, text } from './text.js';

// Catalog contracts: the course list, the course detail and the recommended bundles. One zod
// schema per resource validates requests, serializes responses and documents both (OpenAPI).
// Response schemas carry no transforms: the serializer encodes through them, and transforms
// cannot be encoded.

/** A date-time in the response: ISO 8601 text. */
const dateTime = z.iso.datetime({ offset: true });

/**
 * The `endDate` the list, the bundles and the created course record report for a course without
 * an end date (**settled**): the spec types these `endDate`s as date-time strings, never null, and
 * a course without an end runs on, so its end is the last instant the API knows (date-times are
 * bounded to the years 1000-9999: LATEST_DATE_TIME, 9999-12-31T23:59:59.999Z). A client that compares `endDate` with now never reads such a
 * course as ended. The detail (`GET /api/courses/{id}`) keeps null, as the spec types it there.
 */
export const OPEN_ENDED_END_DATE = LATEST_DATE_TIME;

export const PAGE_SIZE_DEFAULT = 12;
export const PAGE_SIZE_MAX = 50;
/** Courses returned when neither `page` nor `limit` is given (docs/architecture.md, "Catalog settled points"). */
export const UNPAGINATED_CAP = 200;
export const SEARCH_MAX_LENGTH = 200;

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const Category = z.object({ id: z.number().int(), code: z.string(), name: z.string() }).meta({ id: 'Category' });
export type Category = z.infer<typeof Category>;

export const Pagination = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int().describe('Every course matching the filter, not only this page.'),
    totalPages: z.number().int(),
  })
  .meta({ id: 'Pagination' });
export type Pagination = z.infer<typeof Pagination>;

export const DetailSection = z
  .object({
    requirements: z.string().optional(),
    applicationDeadline: z.string().optional().meta({ format: 'date-time' }),
    prerequisites: z.string().optional(),
    credits: z.string().optional(),
    workload: z.string().optional(),
    assessment: z.string().optional(),
    totalCost: z.number().optional(),
    paymentOptions: z.string().optional(),
    scholarships: z.string().optional(),
    outcomes: z.string().optional(),
    industries: z.string().optional(),
    averageSalary: z.string().optional(),
    testimonials: z.string().optional(),
    facilities: z.string().optional(),
    support: z.string().optional(),
  })
  .meta({ id: 'DetailSection', description: 'One section of a course page; every field optional.' });
export type DetailSection = z.infer<typeof DetailSection>;

const detailSections = {
  admissions: DetailSection.nullable(),
  academics: DetailSection.nullable(),
  tuitionAndFinancing: DetailSection.nullable(),
  careers: DetailSection.nullable(),
  studentExperience: DetailSection.nullable(),
};

export const CertificateInfo = z
  .object({
    isEligible: z.boolean().describe('A certificate exists, or every chapter is completed and the final exam (if any) is passed.'),
    isGenerated: z.boolean().describe('A certificate has been issued to the learner.'),
  })
  .meta({ id: 'CertificateInfo' });
export type CertificateInfo = z.infer<typeof CertificateInfo>;

export const LearnerStatus = z.enum(['not-started', 'in-progress', 'completed']).meta({
  id: 'LearnerStatus',
  description:
    '`completed`: certificate issued, or every chapter completed and the final exam (if any) passed. ' +
    '`in-progress`: enrolled with at least one completed chapter or one quiz attempt. `not-started` otherwise, ' +
    'and always for API-key callers.',
});
export type LearnerStatus = z.infer<typeof LearnerStatus>;

// ---------------------------------------------------------------------------------------------
// Quizzes and questions. Two variants: without answer keys (API keys, students, anyone but the
// owner teacher or a super_admin session) and with them. The public variant simply has no
// answer-key fields, so serializing through it drops them whatever the query returned.

export const QuestionOption = z.object({ id: z.string(), text: z.string() }).meta({ id: 'QuestionOption' });
export type QuestionOption = z.infer<typeof QuestionOption>;

export const QuestionOptionWithAnswer = z
  .object({ id: z.string(), text: z.string(), isCorrect: z.boolean().optional() })
  .meta({ id: 'QuestionOptionWithAnswer' });
export type QuestionOptionWithAnswer = z.infer<typeof QuestionOptionWithAnswer>;

const questionFields = {
  id: z.number().int(),
  quizId: z.number().int(),
  questionText: z.string(),
  questionType: z.string(),
  orderIndex: z.number().int(),
  points: z.number().int(),
};

export const Question = z
  .object({ ...questionFields, options: z.array(QuestionOption) })
  .meta({ id: 'Question', description: 'A quiz question without its answer key.' });
export type Question = z.infer<typeof Question>;

export const QuestionWithAnswers = z
  .object({
    ...questionFields,
    options: z.array(QuestionOptionWithAnswer),
    correctAnswer: z.string().nullable(),
    essayAnswer: z.string().nullable(),
    explanation: z.string().nullable(),
  })
  .meta({ id: 'QuestionWithAnswers', description: 'A quiz question with its answer key (owner teacher or super_admin session).' });
export type QuestionWithAnswers = z.infer<typeof QuestionWithAnswers>;

const quizFields = {
  id: z.number().int(),
  chapterId: z.number().int().nullable().describe('Null for module-level quizzes.'),
  name: z.string(),
  description: z.string(),
  quizType: z.string(),
  minimumScore: z.number().int(),
  timeLimit: z.number().int().describe('Minutes.'),
};

/**
 * Who reads a course's content (the LMS's rules/content-access.ts): the catalog's answers say it
 * in their descriptions, and the fields below point here.
 */
export const CONTENT_RULE =
  'Content rule: chapter text and quiz questions are read by those who manage the course (its owner teacher, ' +
  'an admin of its institution, a super_admin, by session); an enrolled learner reads the text of the chapters ' +
  'the unlock rule opens for them and the questions of the chapter and module quizzes it opens; everyone else ' +
  "(every API key, members not enrolled, other teachers and other institutions' staff) reads the outline: " +
  'titles, order and counts, with `content: ""` and `questions: []`. A course with previewMode on also shows ' +
  "everyone who may see it the text of its first chapter in course order (never a question). The final exam's " +
  'questions appear only to those who manage the course, and to a learner inside an open attempt ' +
  '(/api/learning). Answer keys: only the owner teacher and a super_admin, by session.';

export const Quiz = z
  .object({ ...quizFields, questions: z.array(Question).describe('Empty where the content rule withholds them (see the route).') })
  .meta({ id: 'Quiz' });
export type Quiz = z.infer<typeof Quiz>;
export const QuizWithAnswers = z.object({ ...quizFields, questions: z.array(QuestionWithAnswers) }).meta({ id: 'QuizWithAnswers' });
export type QuizWithAnswers = z.infer<typeof QuizWithAnswers>;

// ---------------------------------------------------------------------------------------------
// GET /api/courses

export const QuizSummary = z
  .object({
    id: z.string(),
    title: z.string(),
    type: z.enum(['chapter', 'module']),
    minimumScore: z.number().int(),
    timeLimit: z.number().int().describe('Minutes.'),
    maxAttempts: z.number().int(),
    questionCount: z.number().int(),
  })
  .meta({ id: 'QuizSummary', description: 'A chapter or module quiz as the catalog shows it: no questions.' });
export type QuizSummary = z.infer<typeof QuizSummary>;

export const ChapterSummary = z
  .object({
    id: z.string(),
    title: z.string(),
    order: z.number().int().describe("The chapter's orderIndex."),
    contents: z.array(z.unknown()).describe('Always empty in the catalog: chapter content is read through the course detail.'),
    quiz: QuizSummary.nullable().describe("The chapter's first quiz, if any."),
    isUnlocked: z.boolean(),
    completionPercentage: z.number().describe('100 when the learner completed the chapter, else 0.'),
  })
  .meta({ id: 'ChapterSummary' });
export type ChapterSummary = z.infer<typeof ChapterSummary>;

export const ModuleSummary = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    order: z.number().int().describe("The module's orderIndex."),
    chapterCount: z.number().int(),
    chapters: z.array(ChapterSummary),
    moduleQuiz: QuizSummary.nullable().describe("The module's first module-level quiz, if any."),
    isUnlocked: z.boolean(),
    completionPercentage: z.number().describe('Completed chapters of the module / its chapters x 100 (0 with no chapters).'),
  })
  .meta({ id: 'ModuleSummary' });
export type ModuleSummary = z.infer<typeof ModuleSummary>;

export const ModuleHeader = z
  .object({ id: z.string(), title: z.string(), order: z.number().int(), chapterCount: z.number().int() })
  .meta({ id: 'ModuleHeader' });
export type ModuleHeader = z.infer<typeof ModuleHeader>;

export const FinalExam = z
  .object({
    id: z.string().describe('Empty when the course has no final exam.'),
    title: z.string(),
    type: z.literal('final'),
    questions: z
      .array(Question)
      .describe("The final exam's questions, never with answer keys; only for those who manage the course, [] for everyone else."),
    minimumScore: z.number(),
    attempts: z.number().describe("The session learner's attempts; 0 for API-key callers."),
    maxAttempts: z.number(),
    isPassed: z.boolean(),
  })
  .meta({ id: 'FinalExam' });
export type FinalExam = z.infer<typeof FinalExam>;

export const UNLOCK_RULE =
  'Unlock rule: the first module is unlocked; every other module is unlocked when the module before it is ' +
  'unlocked and complete (all its chapters completed and their chapter quizzes passed, and its module quiz ' +
  'passed; a module without chapters or quiz is complete). Within an unlocked module the first chapter is ' +
  'unlocked and every other chapter is unlocked when the chapter before it is completed and its chapter quiz ' +
  "(if any) passed, at or above the quiz's minimumScore. A chapter the learner completed, and the module " +
  'holding it, are always unlocked. A chapter quiz opens with its chapter, a module quiz with its module, the ' +
  'final exam when every chapter is completed and every chapter and module quiz passed. The learning routes ' +
  '(/api/learning) enforce exactly this rule. API-key callers get this rule applied to no progress: only the ' +
  'first module and its first chapter (and modules reached through empty modules) are unlocked.';

export const PublicCourse = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string().describe('The course code.'),
    description: z.string(),
    instructor: z.string(),
    startDate: dateTime.describe('The course start; a course without one reports its creation time.'),
    endDate: dateTime.describe(`The course end; a course without one runs on and reports \`${OPEN_ENDED_END_DATE}\` (never a past date).`),
    enrollmentType: z.string(),
    enrollmentCode: z
      .string()
      .describe(
        'The code that enrols in a `code` course (POST /api/learning/courses/{id}/enrollment), given only to those who ' +
          'manage the course: its teacher, an admin of its institution or a super_admin, by session. Everyone else (every ' +
          'API key, students, other teachers) gets an empty string, as does a course without a code.',
      ),
    isPurchasable: z.boolean(),
    price: z.number(),
    priceNonMember: z.number().nullable(),
    priceMahasiswa: z.number().nullable(),
    currency: z.string(),
    previewMode: z.boolean(),
    eventCode: z.string().nullable(),
    nilaiKum: z.number().nullable(),
    categoryId: z.number().int().nullable(),
    category: Category.nullable(),
    thumbnail: z.string().optional().describe('The cover picture; absent when the course has none.'),
    moduleCount: z.number().int(),
    moduleSummaries: z.array(ModuleHeader),
    modules: z.array(ModuleSummary),
    ...detailSections,
    finalExam: FinalExam,
    certificate: CertificateInfo,
    minPassingScore: z.number(),
    totalProgress: z.number().describe('Completed chapters / chapters of the course x 100, rounded to 2 decimals; 0 when not enrolled.'),
    status: LearnerStatus,
    studentCount: z.number().int(),
  })
  .meta({ id: 'PublicCourse', description: `A course as the catalog lists it. ${UNLOCK_RULE}` });
export type PublicCourse = z.infer<typeof PublicCourse>;

const categoryIdParam = z
  .union([z.literal('uncategorized'), queryWholeNumber(1, MAX_ID)])
  .describe('A category id, or `uncategorized` for courses without a category.');

export const CourseListQuery = z.object({
  public: queryBoolean()
    .optional()
    .describe('`true` selects the public catalog. API-key callers always get the buyer-visible dataset; sessions ignore it.'),
  page: queryWholeNumber(1, 1_000_000).optional().describe('>= 1; default 1.'),
  limit: queryWholeNumber(1, PAGE_SIZE_MAX).optional().describe(`1 to ${PAGE_SIZE_MAX}; default ${PAGE_SIZE_DEFAULT}.`),
  search: text()
    .max(SEARCH_MAX_LENGTH)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
    .optional()
    .describe(
      'Case-insensitive substring of the course name, description, instructor, course code, category code or ' +
        'category name. `%`, `_` and `\\` are literal characters. Blank: no filter.',
    ),
  categoryId: categoryIdParam.optional(),
  sortBy: z
    .enum(['name', 'students', 'modules'])
    .optional()
    .describe(
      '`name`: A to Z (case-insensitive); `students`: most enrolled first; `modules`: most modules first. ' +
        'Default: newest first. Ties always fall back to newest first (id descending).',
    ),
  courseId: queryWholeNumber(1, MAX_ID)
    .optional()
    .describe('Deep link: only this course, if the caller may see it, in the usual list shape.'),
});
export type CourseListQuery = z.output<typeof CourseListQuery>;

export const CourseListResponse = z
  .object({
    success: z.literal(true),
    courses: z.array(PublicCourse),
    pagination: Pagination.describe(
      `Always present. Without page and limit, at most ${UNPAGINATED_CAP} courses are returned ` +
        `(limit ${UNPAGINATED_CAP}); total shows whether the cap cut the list.`,
    ),
  })
  .meta({ id: 'CourseListResponse' });
export type CourseListResponse = z.infer<typeof CourseListResponse>;

// ---------------------------------------------------------------------------------------------
// GET /api/courses/{id}

export const CourseIdParams = z.object({
  id: documentedAs(
    z
      .string()
      .regex(/^[0-9]{1,100}$/, 'must be a numeric course id')
      .transform(Number),
    { type: 'integer', minimum: 0 },
  ),
});

const chapterFields = {
  id: z.number().int(),
  moduleId: z.number().int(),
  name: z.string(),
  content: z.string().describe('The chapter text; "" where the content rule withholds it (see the route).'),
  orderIndex: z.number().int(),
  createdAt: dateTime,
  updatedAt: dateTime,
};
export const Chapter = z.object({ ...chapterFields, quizzes: z.array(Quiz) }).meta({ id: 'Chapter' });
export type Chapter = z.infer<typeof Chapter>;
export const ChapterWithAnswers = z.object({ ...chapterFields, quizzes: z.array(QuizWithAnswers) }).meta({ id: 'ChapterWithAnswers' });
export type ChapterWithAnswers = z.infer<typeof ChapterWithAnswers>;

const moduleFields = {
  id: z.number().int(),
  courseId: z.number().int(),
  name: z.string(),
  description: z.string(),
  orderIndex: z.number().int(),
  createdAt: dateTime,
  updatedAt: dateTime,
};
export const Module = z.object({ ...moduleFields, chapters: z.array(Chapter) }).meta({ id: 'Module' });
export type Module = z.infer<typeof Module>;
export const ModuleWithAnswers = z.object({ ...moduleFields, chapters: z.array(ChapterWithAnswers) }).meta({ id: 'ModuleWithAnswers' });
export type ModuleWithAnswers = z.infer<typeof ModuleWithAnswers>;

const courseDetailFields = {
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  instructor: z.string(),
  type: z.string(),
  enrollmentType: z.string(),
  startDate: dateTime.nullable(),
  endDate: dateTime.nullable(),
  teacherId: z.string(),
  institutionId: z.number().int(),
  categoryId: z.number().int().nullable(),
  courseCode: z.string(),
  eventCode: z.string().nullable(),
  isPublished: z.boolean(),
  nilaiKum: z.number().nullable(),
  coverPicture: z.string().nullable().meta({ format: 'uri-reference' }),
  isPurchasable: z.boolean(),
  price: z.string().describe('Decimal amount as text, e.g. "150000.00".'),
  priceNonMember: z.string().nullable(),
  priceMahasiswa: z.string().nullable(),
  currency: z.string(),
  previewMode: z.boolean(),
  createdAt: dateTime,
  updatedAt: dateTime,
  teacherName: z.string(),
  teacherEmail: z.string().meta({ format: 'email' }),
  category: Category.nullable(),
  enrollmentCount: z.number().int().describe('Enrollments in the course.'),
  studentCount: z.number().int().describe('Distinct enrolled students (one enrollment per student and course).'),
  ...detailSections,
};

export const CourseDetail = z
  .object({
    ...courseDetailFields,
    modules: z.array(Module),
    moduleQuizzes: z.array(Quiz).describe('Module-level quizzes (chapterId null), in module then quiz order.'),
  })
  .meta({ id: 'CourseDetail', description: 'A course without answer keys.' });
export type CourseDetail = z.infer<typeof CourseDetail>;

export const CourseDetailWithAnswers = z
  .object({
    ...courseDetailFields,
    modules: z.array(ModuleWithAnswers),
    moduleQuizzes: z.array(QuizWithAnswers),
  })
  .meta({ id: 'CourseDetailWithAnswers', description: 'A course with answer keys: its owner teacher or a super_admin, by session.' });
export type CourseDetailWithAnswers = z.infer<typeof CourseDetailWithAnswers>;

export const CourseDetailResponse = z.object({ success: z.literal(true), course: CourseDetail }).meta({ id: 'CourseDetailResponse' });
export const CourseDetailWithAnswersResponse = z
  .object({ success: z.literal(true), course: CourseDetailWithAnswers })
  .meta({ id: 'CourseDetailWithAnswersResponse' });

// ---------------------------------------------------------------------------------------------
// GET /api/recommended-courses

export const BundleQuery = z.object({
  public: queryBoolean()
    .optional()
    .describe('`true`: only bundles whose two courses are both published with an event code. Not implied by an API key.'),
  categoryId: queryWholeNumber(1, MAX_ID).optional().describe('Only bundles of this category.'),
});
export type BundleQuery = z.output<typeof BundleQuery>;

export const BundleCourse = z
  .object({
    id: z.string(),
    numericId: z.number().int(),
    name: z.string(),
    description: z.string(),
    instructor: z.string(),
    code: z.string(),
    eventCode: z.string().nullable(),
    nilaiKum: z.number().nullable(),
    thumbnail: z.string().optional(),
    price: z.number(),
    priceNonMember: z.number().nullable(),
    currency: z.string(),
    categoryId: z.number().int().nullable(),
    enrollmentType: z.string(),
    isPurchasable: z.boolean(),
    previewMode: z.boolean(),
    startDate: dateTime.describe('As in the course list: a course without a start reports its creation time.'),
    endDate: dateTime.describe(`As in the course list: a course without an end reports \`${OPEN_ENDED_END_DATE}\`.`),
    modules: z.array(ModuleSummary),
    certificate: CertificateInfo,
    minPassingScore: z.number(),
    totalProgress: z.number(),
    status: LearnerStatus,
    studentCount: z.number().int(),
  })
  .meta({ id: 'BundleCourse', description: 'One course of a bundle: the PublicCourse fields a bundle shows.' });
export type BundleCourse = z.infer<typeof BundleCourse>;

export const CourseBundle = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    categoryId: z.number().int(),
    category: Category,
    courseOne: BundleCourse,
    courseTwo: BundleCourse,
    totalPrice: z.number().describe('The two course prices added up.'),
    price: z.number().describe('The bundle price; totalPrice when the bundle has none.'),
    priceNonMember: z.number().describe('The non-member bundle price; price when the bundle has none.'),
    kum: z.number().describe('nilaiKum of both courses added up (a course without one counts 0).'),
    currency: z.string(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: 'CourseBundle' });
export type CourseBundle = z.infer<typeof CourseBundle>;

export const BundleListResponse = z
  .object({ success: z.literal(true), recommendedCourses: z.array(CourseBundle) })
  .meta({ id: 'BundleListResponse' });
export type BundleListResponse = z.infer<typeof BundleListResponse>;
