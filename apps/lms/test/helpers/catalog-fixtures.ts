import {
  bundles,
  certificates,
  chapterCompletions,
  chapters,
  courseAccreditations,
  credits,
  type Db,
  enrollments,
  modules,
  questions,
  quizAttempts,
  quizzes,
} from '@lms/db';
import { eq } from 'drizzle-orm';

// Catalog fixtures: categories, courses with their module/chapter/quiz trees, bundles, and a
// learner's progress. Users, sessions and API keys come from fixtures.ts; categories and courses
// from @lms/db/testing, shared with the database's own tests.

export { makeCategory, makeCourse } from '@lms/db/testing';

let counter = 0;
const next = () => ++counter;

export async function makeModule(db: Db, courseId: number, fields: { name?: string; orderIndex?: number; description?: string } = {}) {
  const n = next();
  const [row] = await db
    .insert(modules)
    .values({ courseId, name: fields.name ?? `Module ${n}`, orderIndex: fields.orderIndex ?? 0, description: fields.description ?? '' })
    .returning();
  return row!;
}

export async function makeChapter(db: Db, mod: { id: number; courseId: number }, fields: { name?: string; orderIndex?: number } = {}) {
  const n = next();
  const [row] = await db
    .insert(chapters)
    .values({
      moduleId: mod.id,
      courseId: mod.courseId,
      name: fields.name ?? `Chapter ${n}`,
      content: `Content of chapter ${n}`,
      orderIndex: fields.orderIndex ?? 0,
    })
    .returning();
  return row!;
}

export async function makeQuiz(
  db: Db,
  fields: {
    courseId: number;
    scope: 'chapter' | 'module' | 'final';
    moduleId?: number;
    chapterId?: number;
    name?: string;
    minimumScore?: number;
    maxAttempts?: number;
  },
) {
  const n = next();
  const [row] = await db
    .insert(quizzes)
    .values({ name: `Quiz ${n}`, ...fields })
    .returning();
  return row!;
}

/** A question carrying every kind of answer key the spec names, in the options too. */
export async function makeQuestion(db: Db, quizId: number, fields: { orderIndex?: number; questionText?: string } = {}) {
  const n = next();
  const [row] = await db
    .insert(questions)
    .values({
      quizId,
      questionText: fields.questionText ?? `Question ${n}?`,
      orderIndex: fields.orderIndex ?? 0,
      // Options as stored by older writers too: every spelling of the answer flag.
      options: [
        { id: 'a', text: 'Right', isCorrect: true, is_correct: true, correct: true },
        { id: 'b', text: 'Wrong', isCorrect: false, is_correct: false, correct: false },
      ] as never,
      correctAnswer: 'a',
      essayAnswer: 'An essay answer',
      explanation: 'Because a is right',
      points: 2,
    })
    .returning();
  return row!;
}

/**
 * A course tree: `shape` lists the chapter count of each module; each chapter gets a quiz with
 * one question, each module a module quiz with one question, and the course a final exam.
 */
export async function makeCourseTree(db: Db, courseId: number, shape: number[]) {
  const tree = { modules: [] as { module: typeof modules.$inferSelect; chapters: (typeof chapters.$inferSelect)[] }[], finalQuizId: 0 };
  for (const [i, chapterCount] of shape.entries()) {
    const mod = await makeModule(db, courseId, { orderIndex: i + 1 });
    const list = [];
    for (let j = 0; j < chapterCount; j++) {
      const chapter = await makeChapter(db, mod, { orderIndex: j + 1 });
      const quiz = await makeQuiz(db, { courseId, scope: 'chapter', moduleId: mod.id, chapterId: chapter.id });
      await makeQuestion(db, quiz.id);
      list.push(chapter);
    }
    const moduleQuiz = await makeQuiz(db, { courseId, scope: 'module', moduleId: mod.id });
    await makeQuestion(db, moduleQuiz.id);
    tree.modules.push({ module: mod, chapters: list });
  }
  const final = await makeQuiz(db, { courseId, scope: 'final', name: 'Final exam', minimumScore: 75, maxAttempts: 2 });
  await makeQuestion(db, final.id);
  tree.finalQuizId = final.id;
  return tree;
}

export async function makeBundle(
  db: Db,
  fields: {
    categoryId: number;
    courseOneId: number;
    courseTwoId: number;
    price?: string | null;
    priceNonMember?: string | null;
    name?: string;
  },
) {
  const n = next();
  const [row] = await db
    .insert(bundles)
    .values({ name: fields.name ?? `Bundle ${n}`, description: `Bundle description ${n}`, ...fields })
    .returning();
  return row!;
}

export async function enroll(db: Db, userId: string, courseId: number) {
  await db.insert(enrollments).values({ userId, courseId });
}

export async function completeChapter(db: Db, userId: string, chapter: { id: number; courseId: number }) {
  await db.insert(chapterCompletions).values({ userId, chapterId: chapter.id, courseId: chapter.courseId });
}

export async function attemptQuiz(db: Db, userId: string, quizId: number, score: number, passed: boolean) {
  await db.insert(quizAttempts).values({ userId, quizId, score, passed, submittedAt: new Date() });
}

export async function issueCertificate(db: Db, userId: string, courseId: number) {
  await db.insert(certificates).values({ userId, courseId });
}

/**
 * A certificate and its credit record earned at `at`, under the course's accreditation (makeCourse
 * records one for its nilaiKum): what issuance writes, at a chosen date.
 */
export async function earnCertificate(
  db: Db,
  userId: string,
  c: { id: number; nilaiKum: number | null; creditScheme: string },
  at: string | Date = new Date(),
) {
  const earnedAt = new Date(at);
  const [k] = await db.insert(certificates).values({ userId, courseId: c.id, kum: c.nilaiKum, issuedAt: earnedAt }).returning();
  const [a] = await db.select({ id: courseAccreditations.id }).from(courseAccreditations).where(eq(courseAccreditations.courseId, c.id));
  if (!a) throw new Error(`course ${c.id} has no accreditation: give makeCourse a nilaiKum`);
  await db.insert(credits).values({
    userId,
    courseId: c.id,
    certificateId: k!.id,
    scheme: c.creditScheme,
    amount: c.nilaiKum!,
    earnedAt,
    accreditationId: a.id,
  });
  return k!;
}
