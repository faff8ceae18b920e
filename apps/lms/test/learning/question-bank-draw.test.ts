import { bankQuestions, quizAttempts, quizzes } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { findAnswerKeys } from '../helpers/answer-keys.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { as, learningWorld } from './world.js';

// A quiz drawing from its course's question bank (docs/authoring.md, "Question bank"): each
// attempt gets its own draw (only the tagged questions when the quiz names a tag) and, with
// shuffleOptions, its own option order; both are kept with the attempt, so a reload shows the
// same, the scorer uses exactly them by option id, and the learner never sees a key or an
// undrawn question. A quiz without a draw is as it always was.

const w = await learningWorld(t);
const [ch1] = w.chapterList;
const quiz1 = await w.quizOfChapter(ch1!.id);
const ownIds = (await w.questionsOf(quiz1.id)).map((q) => q.id);

const bankRow = (courseId: number, n: number, tags: string[]) => ({
  courseId,
  tags,
  questionText: `Soal bank ${n} ${tags.join(' ')}`,
  questionType: 'multiple_choice' as const,
  options: ['a', 'b', 'c', 'd'].map((id) => ({ id, text: `Pilihan ${id} soal ${n}`, isCorrect: id === 'a' })),
  correctAnswer: 'a',
  explanation: `Rahasia ${n}`,
  points: 1,
  orderIndex: n,
});
const tagged = await w.db
  .insert(bankQuestions)
  .values([1, 2, 3, 4].map((n) => bankRow(w.course.id, n, ['etika'])))
  .returning({ id: bankQuestions.id });
const untagged = await w.db
  .insert(bankQuestions)
  .values([5, 6, 7, 8].map((n) => bankRow(w.course.id, n, [])))
  .returning({ id: bankQuestions.id });
const other = await makeCourse(w.db, { teacherId: w.teacher.id, institutionId: w.teacher.institutionId! });
const [foreign] = await w.db
  .insert(bankQuestions)
  .values(bankRow(other.id, 9, ['etika']))
  .returning({ id: bankQuestions.id });
const taggedIds = new Set(tagged.map((r) => r.id));
await w.db.update(quizzes).set({ drawCount: 3, drawTag: 'etika', shuffleOptions: true }).where(eq(quizzes.id, quiz1.id));

t.test('bank ids never meet a quiz question id (one sequence)', async (t) => {
  const all = [...ownIds, ...tagged.map((r) => r.id), ...untagged.map((r) => r.id)];
  t.equal(new Set(all).size, all.length);
});

type Started = { attemptId: number; questions: { id: number; questionText: string; options: { id: string; text: string }[] }[] };

t.test('an attempt: the own questions, then 3 tagged bank questions; no key; a reload shows the same', async (t) => {
  const learner = await w.newLearner();
  const me = as(w.app, learner.cookie);
  const started = await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.equal(started.statusCode, 201, started.body.slice(0, 300));
  const body = started.json() as Started;
  t.same(findAnswerKeys(body), [], 'no answer key');
  t.notMatch(started.body, /Rahasia/, 'no explanation');
  t.same(
    body.questions.slice(0, ownIds.length).map((q) => q.id),
    ownIds,
    'the quiz’s own questions first, in order',
  );
  const drawn = body.questions.slice(ownIds.length).map((q) => q.id);
  t.equal(drawn.length, 3, 'drawCount questions drawn');
  t.ok(
    drawn.every((id) => taggedIds.has(id)),
    'only questions with the drawTag, of this course',
  );
  t.notOk(drawn.includes(foreign!.id), "never another course's");

  const again = await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.equal(again.statusCode, 200);
  t.same(again.json().questions, body.questions, 'the open attempt: the same questions and option order');
  // An author's edit of the bank after the start changes nothing of this attempt.
  await w.db.update(bankQuestions).set({ questionText: 'Diubah' }).where(eq(bankQuestions.id, drawn[0]!));
  const reloaded = await me.post(`/api/learning/quizzes/${quiz1.id}/attempts`);
  t.same(reloaded.json().questions, body.questions, 'kept with the attempt');

  // Scored by option id (whatever the position): the right id everywhere, plus an undrawn bank question's id.
  const undrawn = [...taggedIds].find((id) => !drawn.includes(id))!;
  const answers: Record<string, string> = Object.fromEntries(body.questions.map((q) => [String(q.id), 'a']));
  answers[String(undrawn)] = 'a';
  const submitted = await me.post(`/api/learning/quiz-attempts/${body.attemptId}/submission`, { answers });
  t.equal(submitted.statusCode, 200, submitted.body.slice(0, 300));
  t.match(submitted.json(), { score: 100, passed: true, scoredQuestions: body.questions.length }, 'every drawn question scored');
  const [row] = await w.db.select().from(quizAttempts).where(eq(quizAttempts.id, body.attemptId));
  t.notOk(Object.hasOwn(row!.answers!, String(undrawn)), 'an answer to an undrawn question is not kept');
  t.same(
    row!.questions!.map((q) => q.id),
    body.questions.map((q) => q.id),
    'the attempt keeps exactly its draw',
  );

  const wrong = await w.newLearner();
  const mine = as(w.app, wrong.cookie);
  const theirs = (await mine.post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json() as Started;
  // The option at the first position, whatever its id: right only where the shuffle left 'a' first.
  const byPosition = Object.fromEntries(theirs.questions.map((q) => [String(q.id), q.options[0]!.id]));
  const scored = (await mine.post(`/api/learning/quiz-attempts/${theirs.attemptId}/submission`, { answers: byPosition })).json();
  // Points-weighted: the quiz's own questions carry their points, the bank's 1 each.
  const points = new Map((await w.questionsOf(quiz1.id)).map((q) => [q.id, q.points]));
  const weight = (q: { id: number }) => points.get(q.id) ?? 1;
  const earned = theirs.questions.filter((q) => q.options[0]!.id === 'a').reduce((sum, q) => sum + weight(q), 0);
  const total = theirs.questions.reduce((sum, q) => sum + weight(q), 0);
  t.equal(scored.score, Math.round((earned / total) * 10_000) / 100, 'the score follows the ids, not the positions');
});

t.test('draws and option orders differ between attempts; the learner’s own order is kept', async (t) => {
  const draws = new Set<string>();
  let shuffled = 0;
  for (let i = 0; i < 10; i++) {
    const learner = await w.newLearner();
    const body = (await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json() as Started;
    draws.add(
      body.questions
        .slice(ownIds.length)
        .map((q) => q.id)
        .sort()
        .join(','),
    );
    for (const q of body.questions) if (q.options.map((o) => o.id).join('') !== [...q.options.map((o) => o.id)].sort().join('')) shuffled++;
  }
  t.ok(draws.size > 1, `several different draws (${draws.size})`);
  t.ok(shuffled > 0, `options shuffled (${shuffled} questions not in a, b, c order)`);
});

t.test('a quiz without a draw: its own questions only, options in their order, as before', async (t) => {
  await w.db.update(quizzes).set({ drawCount: null, drawTag: null, shuffleOptions: false }).where(eq(quizzes.id, quiz1.id));
  const learner = await w.newLearner();
  const body = (await as(w.app, learner.cookie).post(`/api/learning/quizzes/${quiz1.id}/attempts`)).json() as Started;
  const own = await w.questionsOf(quiz1.id);
  t.same(
    body.questions.map((q) => q.id),
    own.map((q) => q.id),
  );
  t.same(
    body.questions.map((q) => q.options.map((o) => o.id)),
    own.map((q) => q.options.map((o) => String(o.id))),
  );
});

t.test('a learner cannot read the bank', async (t) => {
  const res = await as(w.app, w.learner.cookie).get(`/api/courses/${w.course.id}/question-bank`);
  t.equal(res.statusCode, 403);
  t.notMatch(res.body, /Soal bank/);
});
