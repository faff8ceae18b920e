import { courseAccreditations, quizzes } from '@lms/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Test } from 'tap';
import { makeQuestion, makeQuiz } from '../helpers/catalog-fixtures.js';
import { as, finishChapter, learningWorld, type World } from './world.js';

/**
 * The learning world with credit evidence: a pre-test (a module-scope quiz of the first module,
 * one question) and the final exam as the post-test, with five questions (scores in steps of 20).
 * `accredit` puts the course under a scheme (the row inserted directly: the API is another issue's).
 */
export async function evidenceWorld(t: Test) {
  const w = await learningWorld(t);
  const preTest = await makeQuiz(w.db, {
    courseId: w.course.id,
    scope: 'module',
    moduleId: w.tree.modules[0]!.module.id,
    name: 'Pre-test',
  });
  await makeQuestion(w.db, preTest.id);
  await w.db.update(quizzes).set({ evidenceRole: 'pre_test' }).where(eq(quizzes.id, preTest.id));
  await w.db.update(quizzes).set({ evidenceRole: 'post_test' }).where(eq(quizzes.id, w.tree.finalQuizId));
  for (let i = 0; i < 4; i++) await makeQuestion(w.db, w.tree.finalQuizId, { orderIndex: i + 1 });
  const accredit = async (scheme = 'SKP-KEMENKES') => {
    await w.db.insert(courseAccreditations).values({
      courseId: w.course.id,
      scheme,
      reference: `REF-${scheme}`,
      validFrom: new Date('2020-01-01T00:00:00Z'),
      value: 2,
    });
  };
  return { ...w, preTestId: preTest.id, accredit };
}

export type EvidenceWorld = Awaited<ReturnType<typeof evidenceWorld>>;

/** Takes a quiz answering `right` of its questions right (in order), the rest wrong. */
export async function takeQuizScoring(w: World, cookie: string, quizId: number, right: number) {
  const me = as(w.app, cookie);
  const started = await me.post(`/api/learning/quizzes/${quizId}/attempts`);
  if (started.statusCode >= 300) return started;
  const body = started.json();
  const answers = Object.fromEntries(body.questions.map((q: { id: number }, i: number) => [String(q.id), i < right ? 'a' : 'b']));
  return me.post(`/api/learning/quiz-attempts/${body.attemptId}/submission`, { answers });
}

/**
 * The pre-test (any score), then every chapter, chapter quiz and module quiz. Each enrolled
 * learner's time on every chapter is set to a day first (a scheme such as SKP-KEMENKES asks for 80 %
 * of the expected minutes; the heartbeats that measure it are chapter-time.test.ts's subject).
 */
export async function finishAllButFinalWithPreTest(w: EvidenceWorld, cookie: string) {
  const pre = await takeQuizScoring(w, cookie, w.preTestId, 0);
  if (pre.statusCode !== 200) throw new Error(`pre-test ${pre.statusCode}: ${pre.body}`);
  await w.db.execute(sql`
    insert into chapter_time (user_id, chapter_id, course_id, active_seconds, beats)
    select e.user_id, ch.id, ch.course_id, 86400, 1 from enrollments e join chapters ch on ch.course_id = e.course_id
    where e.course_id = ${w.course.id}
    on conflict (user_id, chapter_id) do update set active_seconds = 86400`);
  for (const m of w.tree.modules) {
    for (const c of m.chapters) await finishChapter(w, cookie, c.id);
    const [gate] = await w.db
      .select({ id: quizzes.id })
      .from(quizzes)
      .where(and(eq(quizzes.moduleId, m.module.id), eq(quizzes.scope, 'module'), isNull(quizzes.evidenceRole)));
    const r = await takeQuizScoring(w, cookie, gate!.id, 1);
    if (r.statusCode !== 200 || !r.json().passed) throw new Error(`module quiz: ${r.statusCode} ${r.body}`);
  }
}

/** A valid evaluation form of the standard items. */
export const GOOD_FORM = { answers: { material: 5, speaker: 4, organisation: 3, relevance: 5 }, comment: 'Sangat bermanfaat' };
