import { chapters, type Db, enrollments, questions, quizzes } from '@lms/db';
import { and, asc, eq } from 'drizzle-orm';
import type { Test } from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { manualClock } from '../helpers/clock.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import type { LmsApp } from '../../src/app.js';

/** An enrollment row, as the enrolment routes (17A) will write it: learning needs only that it exists. */
export async function enrol(db: Db, userId: string, courseId: number) {
  await db.insert(enrollments).values({ userId, courseId });
}

/**
 * A learning world: an app on a clock the test moves, a course of two modules ([2, 1] chapters;
 * each chapter and module with a one-question quiz whose right option is `a`, a final exam), and
 * an enrolled learner with a session.
 */
export async function learningWorld(t: Test) {
  const time = manualClock();
  const { app, db: testDb } = await buildTestApp(t, { deps: { clock: time.clock } });
  const db = testDb.db;
  const institutionId = await makeInstitution(db);
  const teacher = await makeUser(db, { role: 'teacher', institutionId });
  const course = await makeCourse(db, { teacherId: teacher.id, institutionId, nilaiKum: 4.5, minPassingScore: 70 });
  const tree = await makeCourseTree(db, course.id, [2, 1]);
  const chapterList = tree.modules.flatMap((m) => m.chapters);
  const quizOfChapter = async (chapterId: number) =>
    (
      await db
        .select()
        .from(quizzes)
        .where(and(eq(quizzes.chapterId, chapterId), eq(quizzes.scope, 'chapter')))
    )[0]!;
  const quizOfModule = async (moduleId: number) =>
    (
      await db
        .select()
        .from(quizzes)
        .where(and(eq(quizzes.moduleId, moduleId), eq(quizzes.scope, 'module')))
    )[0]!;
  const questionsOf = (quizId: number) => db.select().from(questions).where(eq(questions.quizId, quizId)).orderBy(asc(questions.id));
  const learner = await newLearner();

  async function newLearner(enrolled = true) {
    const user = await makeUser(db, { role: 'student' });
    if (enrolled) await enrol(db, user.id, course.id);
    return { user, cookie: await sessionCookieFor(app, user.id, 30 * 86_400_000) };
  }

  return {
    app,
    db,
    dbHandle: testDb,
    testDb,
    time,
    teacher,
    course,
    tree,
    chapterList,
    quizOfChapter,
    quizOfModule,
    questionsOf,
    learner,
    newLearner,
    chapters,
  };
}

export type World = Awaited<ReturnType<typeof learningWorld>>;

/** A learner's request as their browser sends it (session cookie, the CSRF header on writes). */
export function as(app: LmsApp, cookie: string) {
  return {
    get: (url: string) => app.inject({ method: 'GET', url, headers: { cookie } }),
    post: (url: string, payload?: unknown) =>
      app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'x-requested-with': 'test' },
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
  };
}

/** Starts an attempt and submits `answer` to every question (an option id or text). */
export async function takeQuiz(app: LmsApp, cookie: string, quizId: number, answer: string) {
  const me = as(app, cookie);
  const started = await me.post(`/api/learning/quizzes/${quizId}/attempts`);
  if (started.statusCode >= 300) return started;
  const body = started.json();
  const answers = Object.fromEntries(body.questions.map((q: { id: number }) => [String(q.id), answer]));
  return me.post(`/api/learning/quiz-attempts/${body.attemptId}/submission`, { answers });
}

/** Completes a chapter and passes its quiz, through the API. */
export async function finishChapter(w: World, cookie: string, chapterId: number) {
  const me = as(w.app, cookie);
  const done = await me.post(`/api/learning/chapters/${chapterId}/completion`);
  if (done.statusCode >= 300) throw new Error(`completion ${done.statusCode}: ${done.body}`);
  const passed = await takeQuiz(w.app, cookie, (await w.quizOfChapter(chapterId)).id, 'a');
  if (passed.statusCode !== 200 || !passed.json().passed) throw new Error(`chapter quiz: ${passed.statusCode} ${passed.body}`);
}

/** Everything but the final exam: every chapter and chapter quiz, every module quiz. */
export async function finishAllButFinal(w: World, cookie: string) {
  for (const m of w.tree.modules) {
    for (const c of m.chapters) await finishChapter(w, cookie, c.id);
    const r = await takeQuiz(w.app, cookie, (await w.quizOfModule(m.module.id)).id, 'a');
    if (r.statusCode !== 200 || !r.json().passed) throw new Error(`module quiz: ${r.statusCode} ${r.body}`);
  }
}
