import { questions, quizAttempts, quizzes } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { findAnswerKeys } from '../helpers/answer-keys.js';
import { as, learningWorld, takeQuiz } from './world.js';

const w = await learningWorld(t);
const [ch1, ch2] = w.chapterList;
const me = as(w.app, w.learner.cookie);
const quiz1 = await w.quizOfChapter(ch1!.id);

t.test('starting: questions without any answer key; an open attempt is returned again', async (t) => {
  const started = await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.equal(started.statusCode, 201);
  const body = started.json();
  t.same(findAnswerKeys(body), [], 'no answer key anywhere');
  t.notMatch(started.body, /Because a is right|An essay answer/, 'nor their text');
  t.same(body.questions[0].options, [
    { id: 'a', text: 'Right' },
    { id: 'b', text: 'Wrong' },
  ]);
  t.match(body, { attemptNumber: 1, quiz: { id: quiz1.id, passMark: 70, timeLimit: 30, maxAttempts: 3 } });
  t.equal(Date.parse(body.expiresAt) - Date.parse(body.startedAt), 30 * 60_000, 'expires after the time limit');
  const again = await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.equal(again.statusCode, 200);
  t.equal(again.json().attemptId, body.attemptId, 'the same attempt');

  const submitted = await me.post(`/api/learning/quiz-attempts/${body.attemptId}/submission`, { answers: { [body.questions[0].id]: 'b' } });
  t.equal(submitted.statusCode, 200);
  t.match(submitted.json(), { score: 0, passed: false, passMark: 70, attemptNumber: 1, attemptsLeft: 2, scoredQuestions: 1 });
  t.same(findAnswerKeys(submitted.json()), []);
  const twice = await me.post(`/api/learning/quiz-attempts/${body.attemptId}/submission`, { answers: {} });
  t.equal(twice.statusCode, 409, 'submitted once only');
  t.match(twice.json().error, /already submitted/);
});

t.test('maxAttempts: the attempt after the last is 409', async (t) => {
  const learner = await w.newLearner();
  await w.db.update(quizzes).set({ maxAttempts: 2 }).where(eq(quizzes.id, quiz1.id));
  t.teardown(() => w.db.update(quizzes).set({ maxAttempts: 3 }).where(eq(quizzes.id, quiz1.id)));
  t.equal((await takeQuiz(w.app, learner.cookie, quiz1.id, 'b')).statusCode, 200);
  t.equal((await takeQuiz(w.app, learner.cookie, quiz1.id, 'b')).statusCode, 200);
  const third = await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.equal(third.statusCode, 409);
  t.match(third.json(), { success: false, error: /No attempts left: this quiz allows 2/ });
  const rows = await w.db.select().from(quizAttempts).where(eq(quizAttempts.userId, learner.user.id));
  t.equal(rows.length, 2, 'no third attempt recorded');
});

t.test('the time limit: answers after expiresAt + 30 s are refused and the attempt closes failed', async (t) => {
  const learner = await w.newLearner();
  const mine = as(w.app, learner.cookie);
  const start = w.time.ms;
  t.teardown(() => w.time.set(start));
  const late = (await mine.post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json();
  w.time.set(start + 30 * 60_000 + 31_000);
  const refused = await mine.post(`/api/learning/quiz-attempts/${late.attemptId}/submission`, { answers: { [late.questions[0].id]: 'a' } });
  t.equal(refused.statusCode, 409);
  t.match(refused.json().error, /time limit passed/);
  const [row] = await w.db.select().from(quizAttempts).where(eq(quizAttempts.id, late.attemptId));
  t.match(row, { score: 0, passed: false });
  t.ok(row!.submittedAt, 'closed');

  // Within the grace: accepted.
  const onTime = (await mine.post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json();
  t.not(onTime.attemptId, late.attemptId, 'the closed attempt is not handed out again');
  w.time.set(w.time.ms + 30 * 60_000 + 29_000);
  const accepted = await mine.post(`/api/learning/quiz-attempts/${onTime.attemptId}/submission`, {
    answers: { [onTime.questions[0].id]: 'a' },
  });
  t.equal(accepted.statusCode, 200);
  t.match(accepted.json(), { score: 100, passed: true, attemptNumber: 2 });

  // An attempt abandoned past its time is closed (score 0) when the next one starts, and counts.
  const quiz2 = await w.quizOfChapter(ch2!.id);
  t.equal((await mine.post(`/api/learning/chapters/${ch1!.id}/completion`)).statusCode, 201);
  const abandoned = (await mine.post(`/api/learning/quizzes/${quiz2.id}/attempts`)).json();
  w.time.set(w.time.ms + 31 * 60_000);
  const next = await mine.post(`/api/learning/quizzes/${quiz2.id}/attempts`);
  t.equal(next.statusCode, 201);
  t.equal(next.json().attemptNumber, 2);
  const [closed] = await w.db.select().from(quizAttempts).where(eq(quizAttempts.id, abandoned.attemptId));
  t.match(closed, { score: 0, passed: false });
});

t.test("another learner's attempt is 404; a locked quiz is 403", async (t) => {
  const other = await w.newLearner();
  const mine = await me.post(`/api/learning/quizzes/${(await w.quizOfChapter(ch2!.id)).id}/attempts`);
  t.equal(mine.statusCode, 403, 'the quiz of a locked chapter');
  t.match(mine.json().error, /quiz is locked/);
  const final = await me.post(`/api/learning/quizzes/${w.tree.finalQuizId}/attempts`);
  t.equal(final.statusCode, 403, 'the final exam before the rest');
  t.match(final.json().error, /final exam is locked/);
  const moduleQuiz = await w.quizOfModule(w.tree.modules[1]!.module.id);
  t.equal((await me.post(`/api/learning/quizzes/${moduleQuiz.id}/attempts`)).statusCode, 403, 'the quiz of a locked module');

  const open = (await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json();
  const theirs = await as(w.app, other.cookie).post(`/api/learning/quiz-attempts/${open.attemptId}/submission`, { answers: {} });
  t.equal(theirs.statusCode, 404);
  t.match(theirs.json(), { success: false, error: 'Quiz attempt not found' });
  const [row] = await w.db.select().from(quizAttempts).where(eq(quizAttempts.id, open.attemptId));
  t.equal(row!.submittedAt, null, 'still open for its owner');
  const stranger = await w.newLearner(false);
  t.equal((await as(w.app, stranger.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`)).statusCode, 403, 'not enrolled');
  t.equal((await me.post('/api/learning/quizzes/99999999/attempts')).statusCode, 404);
  const bad = await me.post(`/api/learning/quiz-attempts/${open.attemptId}/submission`, { answers: 'a' });
  t.equal(bad.statusCode, 400);
});

t.test('scoring: points-weighted, text answers normalised, essays without a key not scored', async (t) => {
  const learner = await w.newLearner();
  await w.db.insert(questions).values([
    {
      quizId: quiz1.id,
      questionText: 'Capital?',
      questionType: 'short_answer',
      options: [],
      correctAnswer: '  Jakarta  Raya ',
      points: 3,
      orderIndex: 5,
    },
    {
      quizId: quiz1.id,
      questionText: 'Discuss.',
      questionType: 'essay',
      options: [],
      correctAnswer: null,
      essayAnswer: null,
      points: 5,
      orderIndex: 6,
    },
  ]);
  t.teardown(() => w.db.delete(questions).where(eq(questions.orderIndex, 5)));
  t.teardown(() => w.db.delete(questions).where(eq(questions.orderIndex, 6)));
  const attempt = (await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json();
  const [choice, text, essay] = attempt.questions;
  t.same(text.options, []);
  const res = await as(w.app, learner.cookie).post(`/api/learning/quiz-attempts/${attempt.attemptId}/submission`, {
    answers: { [choice.id]: 'b', [text.id]: 'jakarta raya', [essay.id]: 'my essay' },
  });
  // choice (2 points) wrong, text (3 points) right: 3 of 5.
  t.match(res.json(), { score: 60, passed: false, scoredQuestions: 2 });
});

t.test(
  "crafted answers: another quiz's keys, prototype names, NUL and lone surrogates score nothing and are 400s, never 5xx",
  async (t) => {
    const learner = await w.newLearner();
    const attempt = (await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json();
    const own = attempt.questions[0].id;
    const elsewhere = await w.quizOfChapter(ch2!.id);
    const [foreign] = await w.questionsOf(elsewhere.id);
    const submit = (answers: Record<string, string>) =>
      as(w.app, learner.cookie).post(`/api/learning/quiz-attempts/${attempt.attemptId}/submission`, { answers });
    const nul = await submit({ [own]: 'x\u0000a' });
    t.equal(nul.statusCode, 400, `NUL in an answer: ${nul.body}`);
    t.equal((await submit({ [own]: '\ud800' })).statusCode, 400, 'an unpaired surrogate in an answer');
    t.equal((await submit({ [`${own}\u0000`]: 'a' })).statusCode, 400, 'NUL in a question id');
    const crafted = await submit({ [own]: 'b', [String(foreign!.id)]: 'a', __proto__: 'a', constructor: 'a', toString: 'a' });
    t.equal(crafted.statusCode, 200, 'answers to questions of another quiz are ignored, not an error');
    t.match(crafted.json(), { score: 0, passed: false, scoredQuestions: 1 }, "only this quiz's questions are scored");
  },
);
