import { quizAttempts } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { as } from './world.js';
import { evidenceWorld, takeQuizScoring } from './evidence-world.js';

// The pre-test gate (docs/authoring.md, "Pre-test, post-test and evaluation"): a course with a
// pre-test opens no chapter before one submitted attempt of it, whatever its score; the pre-test
// itself is open to every enrolled learner. No accreditation is needed for the gate.

const w = await evidenceWorld(t);
const first = w.chapterList[0]!;

const catalogChapters = async (cookie: string) =>
  (await as(w.app, cookie).get(`/api/courses?courseId=${w.course.id}`))
    .json()
    .courses[0].modules.flatMap((m: { chapters: { id: string; isUnlocked: boolean }[] }) => m.chapters);

t.test('before the pre-test: every chapter and quiz is locked, and says to take the pre-test first', async (t) => {
  const me = as(w.app, w.learner.cookie);
  const chapter = await me.get(`/api/learning/chapters/${first.id}`);
  t.equal(chapter.statusCode, 403);
  t.match(chapter.json().error, /take the pre-test "Pre-test"/);
  const quiz = await me.post(`/api/learning/quizzes/${(await w.quizOfChapter(first.id)).id}/attempts`);
  t.equal(quiz.statusCode, 403, "the first chapter's quiz is locked too");
  const final = await me.post(`/api/learning/quizzes/${w.tree.finalQuizId}/attempts`);
  t.equal(final.statusCode, 403, 'the final exam is locked');
  const completion = await me.post(`/api/learning/chapters/${first.id}/completion`);
  t.equal(completion.statusCode, 403, 'a chapter cannot be completed');
  t.same(
    (await catalogChapters(w.learner.cookie)).map((c: { isUnlocked: boolean }) => c.isUnlocked),
    [false, false, false],
    'the catalog shows the same: nothing open',
  );
  for (const [lang, words] of [
    ['en', 'take the pre-test “Pre-test” first'],
    ['id', 'kerjakan dulu pre-test “Pre-test”'],
  ]) {
    const page = await w.app.inject({
      url: `/learn/chapters/${first.id}`,
      headers: { cookie: w.learner.cookie, 'accept-language': lang! },
    });
    t.equal(page.statusCode, 403);
    t.match(page.body, words!, `the locked page names the pre-test (${lang})`);
  }
});

t.test('a failed pre-test attempt opens the first chapter; its score is kept', async (t) => {
  const me = as(w.app, w.learner.cookie);
  const pre = await takeQuizScoring(w, w.learner.cookie, w.preTestId, 0);
  t.equal(pre.statusCode, 200, pre.body);
  t.match(pre.json(), { score: 0, passed: false });
  t.equal((await me.get(`/api/learning/chapters/${first.id}`)).statusCode, 200, 'the first chapter opens');
  t.equal((await me.get(`/api/learning/chapters/${w.chapterList[1]!.id}`)).statusCode, 403, 'the next one waits as before');
  t.same(
    (await catalogChapters(w.learner.cookie)).map((c: { isUnlocked: boolean }) => c.isUnlocked),
    [true, false, false],
    'the catalog agrees',
  );
  const [kept] = await w.db
    .select()
    .from(quizAttempts)
    .where(and(eq(quizAttempts.userId, w.learner.user.id), eq(quizAttempts.quizId, w.preTestId)));
  t.equal(kept!.score, 0, 'the score is kept');
});

t.test('another learner is still held at the pre-test; a learner not enrolled cannot take it', async (t) => {
  const other = await w.newLearner();
  t.equal((await as(w.app, other.cookie).get(`/api/learning/chapters/${first.id}`)).statusCode, 403);
  const stranger = await w.newLearner(false);
  const r = await as(w.app, stranger.cookie).post(`/api/learning/quizzes/${w.preTestId}/attempts`);
  t.equal(r.statusCode, 403);
  t.match(r.json().error, /not enrolled/);
});

t.test('a started but unsubmitted pre-test opens nothing', async (t) => {
  const other = await w.newLearner();
  const me = as(w.app, other.cookie);
  t.equal((await me.post(`/api/learning/quizzes/${w.preTestId}/attempts`)).statusCode, 201);
  t.equal((await me.get(`/api/learning/chapters/${first.id}`)).statusCode, 403);
});
