// Course authoring: the one module that writes courses, their modules, chapters and quizzes. The
// JSON routes (routes/authoring), the gateway's forwarded partner calls and the studio pages call
// these functions with an AuthoringContext (who writes, when); each write checks the author's
// right on the course, keeps what learners did, and records itself in the course's history.
export {
  AUTHOR_ROLES,
  type Author,
  type AuthoringContext,
  type AuthoringTarget,
  assertMayCreateFor,
  type CourseRow,
  findAuthoredCourse,
  lockAuthoredCourse,
  mayAuthorSql,
} from './authors.js';
export { courseFieldsOf, documentTag, exportCourse, importNewCourse, replaceCourse, updateCourseFields } from './document.js';
export { readHistory } from './history.js';
export {
  type ChapterView,
  createChapter,
  createModule,
  deleteChapter,
  deleteModule,
  deleteQuiz,
  type ModuleView,
  putQuiz,
  quizVersion,
  type QuizPlace,
  reorderOutline,
  updateChapter,
  updateModule,
} from './items.js';
export {
  AUTHORING_OPERATIONS,
  type AuthoringOperation,
  QUIZ_OPERATIONS,
  QUIZ_SCOPES,
  type QuizScope,
  quizPlaceOf,
  quizTargetOf,
} from './operations.js';
export { checklistOf, publishCourse, type QuizReadiness, readPublication, unpublishCourse } from './publication.js';
export { ImportRefusedError, importQuestions, readQuestionBank, replaceQuestionBank } from './question-bank.js';
export { LearnersHoldError } from './rows.js';
export {
  chapterForEditor,
  chaptersShowing,
  type EditedChapter,
  type EditedQuiz,
  isCoursePublished,
  quizForEditor,
  type TeacherChoice,
  teachersForNewCourse,
} from './studio-reads.js';
export { assertVersion, StaleDocumentError, StaleVersionError } from './versions.js';
