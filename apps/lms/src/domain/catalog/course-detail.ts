import type { CourseDetail, CourseDetailWithAnswers, QuestionWithAnswers, Question } from '@lms/contracts';
import { MAX_ID } from '@lms/contracts';
import { categories, chapters, courses, type Db, modules, questions, quizzes, users } from '@lms/db';
import { and, asc, eq, ne } from 'drizzle-orm';
import { isBuyerVisible } from './buyer-visible.js';
import { categoryOf, groupBy, publicQuestionColumns, questionOrder } from './public-fields.js';
import { type CatalogViewer, mayViewAnswerKeys, mayViewHiddenCourse, toIso } from './viewer.js';

export type CourseDetailView =
  | { withAnswerKeys: false; course: CourseDetail }
  | { withAnswerKeys: true; course: CourseDetailWithAnswers };

/**
 * A course's detail page for a viewer, or null when it does not exist or the viewer may not see
 * it (a course that is not buyer-visible exists only for its owner and super_admins, by session).
 * Answer keys are selected only for those who may see them. Five queries, whatever the size.
 */
export async function findCourseDetail(db: Db, viewer: CatalogViewer, id: number): Promise<CourseDetailView | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return null;
  const [row] = await db
    .select({
      course: {
        id: courses.id,
        name: courses.name,
        description: courses.description,
        instructor: courses.instructor,
        type: courses.type,
        enrollmentType: courses.enrollmentType,
        startDate: courses.startDate,
        endDate: courses.endDate,
        teacherId: courses.teacherId,
        institutionId: courses.institutionId,
        categoryId: courses.categoryId,
        courseCode: courses.courseCode,
        eventCode: courses.eventCode,
        isPublished: courses.isPublished,
        nilaiKum: courses.nilaiKum,
        coverPicture: courses.coverPicture,
        isPurchasable: courses.isPurchasable,
        price: courses.price,
        priceNonMember: courses.priceNonMember,
        priceMahasiswa: courses.priceMahasiswa,
        currency: courses.currency,
        previewMode: courses.previewMode,
        createdAt: courses.createdAt,
        updatedAt: courses.updatedAt,
        studentCount: courses.studentCount,
        admissions: courses.admissions,
        academics: courses.academics,
        tuitionAndFinancing: courses.tuitionAndFinancing,
        careers: courses.careers,
        studentExperience: courses.studentExperience,
      },
      teacherName: users.name,
      teacherEmail: users.email,
      categoryCode: categories.code,
      categoryName: categories.name,
    })
    .from(courses)
    .innerJoin(users, eq(users.id, courses.teacherId))
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(eq(courses.id, id))
    .limit(1);
  if (!row) return null;
  const c = row.course;
  if (!isBuyerVisible(c) && !mayViewHiddenCourse(viewer, c.teacherId)) return null;
  const withAnswerKeys = mayViewAnswerKeys(viewer, c.teacherId);

  const [moduleRows, chapterRows, quizRows, questionRows] = await Promise.all([
    db.select().from(modules).where(eq(modules.courseId, id)).orderBy(asc(modules.orderIndex), asc(modules.id)),
    db
      .select({
        id: chapters.id,
        moduleId: chapters.moduleId,
        name: chapters.name,
        content: chapters.content,
        orderIndex: chapters.orderIndex,
        createdAt: chapters.createdAt,
        updatedAt: chapters.updatedAt,
      })
      .from(chapters)
      .where(eq(chapters.courseId, id))
      .orderBy(asc(chapters.orderIndex), asc(chapters.id)),
    // Chapter and module quizzes; the final exam belongs to the catalog summary.
    db
      .select({
        id: quizzes.id,
        scope: quizzes.scope,
        moduleId: quizzes.moduleId,
        chapterId: quizzes.chapterId,
        name: quizzes.name,
        description: quizzes.description,
        quizType: quizzes.quizType,
        minimumScore: quizzes.minimumScore,
        timeLimit: quizzes.timeLimit,
      })
      .from(quizzes)
      .where(and(eq(quizzes.courseId, id), ne(quizzes.scope, 'final')))
      .orderBy(asc(quizzes.id)),
    withAnswerKeys ? questionsWithAnswerKeys(db, id) : questionsWithoutAnswerKeys(db, id),
  ]);

  const questionsByQuiz = groupBy<Question | QuestionWithAnswers>(questionRows, (q) => q.quizId);
  const chaptersByModule = groupBy(chapterRows, (ch) => ch.moduleId);
  const quizzesByChapter = groupBy(
    quizRows.filter((q) => q.scope === 'chapter'),
    // biome-ignore lint/style/noNonNullAssertion: a chapter-scoped quiz has a chapterId (a CHECK constraint).
    (q) => q.chapterId!,
  );
  const quizzesByModule = groupBy(
    quizRows.filter((q) => q.scope === 'module'),
    // biome-ignore lint/style/noNonNullAssertion: a module-scoped quiz has a moduleId (a CHECK constraint).
    (q) => q.moduleId!,
  );
  const quiz = (q: (typeof quizRows)[number]) => ({
    id: q.id,
    chapterId: q.chapterId,
    name: q.name,
    description: q.description,
    quizType: q.quizType,
    minimumScore: q.minimumScore,
    timeLimit: q.timeLimit,
    questions: questionsByQuiz.get(q.id) ?? [],
  });
  const course = {
    ...c,
    startDate: c.startDate ? toIso(c.startDate) : null,
    endDate: c.endDate ? toIso(c.endDate) : null,
    createdAt: toIso(c.createdAt),
    updatedAt: toIso(c.updatedAt),
    teacherName: row.teacherName,
    teacherEmail: row.teacherEmail,
    category: categoryOf(c.categoryId, row.categoryCode, row.categoryName),
    // One enrollment per (student, course), so both counts are the enrollment counter.
    enrollmentCount: c.studentCount,
    modules: moduleRows.map((m) => ({
      id: m.id,
      courseId: m.courseId,
      name: m.name,
      description: m.description,
      orderIndex: m.orderIndex,
      createdAt: toIso(m.createdAt),
      updatedAt: toIso(m.updatedAt),
      chapters: (chaptersByModule.get(m.id) ?? []).map((ch) => ({
        ...ch,
        createdAt: toIso(ch.createdAt),
        updatedAt: toIso(ch.updatedAt),
        quizzes: (quizzesByChapter.get(ch.id) ?? []).map(quiz),
      })),
    })),
    moduleQuizzes: moduleRows.flatMap((m) => (quizzesByModule.get(m.id) ?? []).map(quiz)),
  };
  return withAnswerKeys
    ? { withAnswerKeys, course: course as CourseDetailWithAnswers }
    : { withAnswerKeys, course: course as CourseDetail };
}

/** Questions as API keys and students get them: the answer-key columns are not even read. */
function questionsWithoutAnswerKeys(db: Db, courseId: number): Promise<Question[]> {
  return db
    .select(publicQuestionColumns)
    .from(questions)
    .innerJoin(quizzes, eq(quizzes.id, questions.quizId))
    .where(and(eq(quizzes.courseId, courseId), ne(quizzes.scope, 'final')))
    .orderBy(...questionOrder);
}

function questionsWithAnswerKeys(db: Db, courseId: number): Promise<QuestionWithAnswers[]> {
  return db
    .select({
      ...publicQuestionColumns,
      options: questions.options,
      correctAnswer: questions.correctAnswer,
      essayAnswer: questions.essayAnswer,
      explanation: questions.explanation,
    })
    .from(questions)
    .innerJoin(quizzes, eq(quizzes.id, questions.quizId))
    .where(and(eq(quizzes.courseId, courseId), ne(quizzes.scope, 'final')))
    .orderBy(...questionOrder);
}
