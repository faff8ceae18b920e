import { quizAttemptGrants } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import t from 'tap';
import { MAX_TOTAL_EXTRA_ATTEMPTS } from '../../src/domain/learning/attempt-grants.js';
import { sessionCookieFor } from '../helpers/fixtures.js';
import { as, learningWorld } from './world.js';

// Extra attempts are capped per learner and quiz (issue 40, Low: "300 grants gave 6,000 extra
// attempts uncapped"). A course's manager granting again and again, one after the other or all at
// once, reaches MAX_TOTAL_EXTRA_ATTEMPTS and no further; the page says why, in both languages.

const w = await learningWorld(t);
const ORIGIN = 'http://localhost:3000';
const owner = await sessionCookieFor(w.app, w.teacher.id);
const quiz = await w.quizOfChapter(w.chapterList[0]!.id);

const grant = (userId: string, extra: number, lang = 'en') =>
  w.app.inject({
    method: 'POST',
    url: `/dashboard/courses/${w.course.id}/learners/${userId}/grants`,
    headers: { cookie: owner, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    payload: new URLSearchParams({ quizId: String(quiz.id), extra: String(extra), reason: 'Ujian ulang' }).toString(),
  });
const held = async (userId: string) =>
  (
    await w.db
      .select({ n: sql<number>`coalesce(sum(${quizAttemptGrants.extraAttempts}), 0)::int` })
      .from(quizAttemptGrants)
      .where(and(eq(quizAttemptGrants.userId, userId), eq(quizAttemptGrants.quizId, quiz.id)))
  )[0]!.n;

t.test('one grant after another: up to the cap, then refused and said', async (t) => {
  const learner = w.learner;
  for (let i = 0; i < MAX_TOTAL_EXTRA_ATTEMPTS / 20; i++) {
    const res = await grant(learner.user.id, 20);
    t.equal(res.headers.location, `/dashboard/courses/${w.course.id}/learners/${learner.user.id}?granted=granted`, `grant ${i + 1}`);
  }
  t.equal(await held(learner.user.id), MAX_TOTAL_EXTRA_ATTEMPTS);
  for (const extra of [1, 20]) {
    const res = await grant(learner.user.id, extra);
    t.equal(res.statusCode, 303);
    t.match(res.headers.location, /\?granted=capped#grant$/, `+${extra} past the cap: refused`);
  }
  t.equal(await held(learner.user.id), MAX_TOTAL_EXTRA_ATTEMPTS, 'nothing more recorded');
  for (const [lang, words] of [
    ['en', 'at most 100 extra attempts per quiz'],
    ['id', 'paling banyak 100 percobaan tambahan per kuis'],
  ] as const) {
    const page = await w.app.inject({
      url: `/dashboard/courses/${w.course.id}/learners/${learner.user.id}?granted=capped`,
      headers: { cookie: owner, 'accept-language': lang },
    });
    t.equal(page.statusCode, 200);
    t.match(page.body, words, `${lang}: the page says why`);
  }
  // What the learner is allowed follows the grants that were recorded: maxAttempts + 100.
  const started = await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz.id}/attempts`);
  t.equal(started.statusCode, 201);
  const submitted = await as(w.app, learner.cookie).post(`/api/learning/quiz-attempts/${started.json().attemptId}/submission`, {
    answers: {},
  });
  t.equal(submitted.json().attemptsLeft, quiz.maxAttempts + MAX_TOTAL_EXTRA_ATTEMPTS - 1);
});

t.test('grants sent all at once cannot pass the cap together', async (t) => {
  const other = await w.newLearner();
  await grant(other.user.id, 15);
  const results = await Promise.all(Array.from({ length: 12 }, () => grant(other.user.id, 20)));
  const granted = results.filter((r) => String(r.headers.location).endsWith('granted=granted')).length;
  const capped = results.filter((r) => String(r.headers.location).includes('granted=capped')).length;
  t.equal(granted, 4, 'four more grants of 20 fit beside the first 15');
  t.equal(capped, 8, 'the others are refused');
  t.equal(await held(other.user.id), 95, 'never past the cap');
  t.ok(
    results.every((r) => r.statusCode === 303),
    'no 5xx',
  );
});
