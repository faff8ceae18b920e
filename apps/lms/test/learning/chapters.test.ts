import t from 'tap';
import { apiKeyFor } from '../helpers/fixtures.js';
import { findAnswerKeys } from '../helpers/answer-keys.js';
import { as, learningWorld, takeQuiz } from './world.js';

const w = await learningWorld(t);
const [ch1, ch2, ch3] = w.chapterList;
const me = as(w.app, w.learner.cookie);

t.test('who may read: not enrolled 403, API key 403, no session 401, unknown 404', async (t) => {
  const stranger = await w.newLearner(false);
  const res = await as(w.app, stranger.cookie).get(`/api/learning/chapters/${ch1!.id}`);
  t.equal(res.statusCode, 403);
  t.match(res.json(), { success: false, error: /not enrolled/ });
  const done = await as(w.app, stranger.cookie).post(`/api/learning/chapters/${ch1!.id}/completion`);
  t.equal(done.statusCode, 403, 'nor complete it');
  const key = await apiKeyFor(w.db, w.teacher.id);
  t.equal((await w.app.inject({ url: `/api/learning/chapters/${ch1!.id}`, headers: { 'x-api-key': key } })).statusCode, 403, 'an API key');
  t.equal((await w.app.inject({ url: `/api/learning/chapters/${ch1!.id}` })).statusCode, 401);
  t.equal((await me.get('/api/learning/chapters/99999999')).statusCode, 404);
  t.equal((await me.get('/api/learning/chapters/abc')).statusCode, 400);
});

t.test('a locked chapter is refused, to read and to complete, saying what opens it', async (t) => {
  const first = await me.get(`/api/learning/chapters/${ch1!.id}`);
  t.equal(first.statusCode, 200);
  t.match(first.json().chapter, { id: ch1!.id, name: ch1!.name, content: ch1!.content, completed: false, nextChapterId: ch2!.id });
  t.same(findAnswerKeys(first.json()), []);

  const locked = await me.get(`/api/learning/chapters/${ch2!.id}`);
  t.equal(locked.statusCode, 403);
  t.match(locked.json().error, new RegExp(`locked: complete the chapter "${ch1!.name}"`));
  t.equal((await me.post(`/api/learning/chapters/${ch2!.id}/completion`)).statusCode, 403, 'completing a locked chapter');
  t.equal((await me.post(`/api/learning/chapters/${ch3!.id}/completion`)).statusCode, 403, 'nor one of a locked module');
  const rows = await w.db.execute(`select count(*)::int as n from chapter_completions where user_id = '${w.learner.user.id}'`);
  t.equal((rows.rows[0] as { n: number }).n, 0, 'nothing recorded');
});

t.test('completion: 201 then 200; the chapter quiz below its minimumScore keeps the next chapter locked', async (t) => {
  const csrf = await w.app.inject({
    method: 'POST',
    url: `/api/learning/chapters/${ch1!.id}/completion`,
    headers: { cookie: w.learner.cookie },
  });
  t.equal(csrf.statusCode, 403, 'without the CSRF header');
  const done = await me.post(`/api/learning/chapters/${ch1!.id}/completion`);
  t.equal(done.statusCode, 201);
  t.match(done.json(), { success: true, chapter: { completed: true }, certificateCode: null });
  t.equal((await me.post(`/api/learning/chapters/${ch1!.id}/completion`)).statusCode, 200, 'again: 200');

  const quiz = await w.quizOfChapter(ch1!.id);
  const stillLocked = await me.get(`/api/learning/chapters/${ch2!.id}`);
  t.equal(stillLocked.statusCode, 403);
  t.match(stillLocked.json().error, new RegExp(`pass the quiz "${quiz.name}"`));

  const failed = await takeQuiz(w.app, w.learner.cookie, quiz.id, 'b');
  t.match(failed.json(), { score: 0, passed: false });
  t.equal((await me.get(`/api/learning/chapters/${ch2!.id}`)).statusCode, 403, 'a failed quiz does not open it');
  const passed = await takeQuiz(w.app, w.learner.cookie, quiz.id, 'a');
  t.match(passed.json(), { score: 100, passed: true });
  t.equal((await me.get(`/api/learning/chapters/${ch2!.id}`)).statusCode, 200, 'passed: the next chapter opens');
});

t.test('the server agrees with the catalog on every chapter', async (t) => {
  const catalog = await me.get(`/api/courses?courseId=${w.course.id}`);
  const shown = catalog.json().courses[0].modules.flatMap((m: { chapters: { id: string; isUnlocked: boolean }[] }) => m.chapters);
  t.equal(shown.length, 3);
  for (const c of shown) {
    const status = (await me.get(`/api/learning/chapters/${c.id}`)).statusCode;
    t.equal(status === 200, c.isUnlocked, `chapter ${c.id}: catalog ${c.isUnlocked}, server ${status}`);
  }
  t.same(
    shown.map((c: { isUnlocked: boolean }) => c.isUnlocked),
    [true, true, false],
  );
});
