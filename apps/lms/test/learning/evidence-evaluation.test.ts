import { evaluationCompletions, evaluationResponses, users } from '@lms/db';
import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { as } from './world.js';
import { evidenceWorld, finishAllButFinalWithPreTest, GOOD_FORM } from './evidence-world.js';

// The evaluation form: once per learner, enrolled and every chapter done; every item 1..5, a
// comment of plain text up to 2000 characters (422 otherwise). Its answers are kept without the
// learner, and the managers' summary never says who wrote what.

const w = await evidenceWorld(t);
const url = `/api/learning/courses/${w.course.id}/evaluation`;

/** A learner enrolled, with the pre-test, every chapter and every quiz but the final done. */
async function readyLearner(name?: string) {
  const learner = await w.newLearner();
  if (name) await w.db.update(users).set({ name }).where(eq(users.id, learner.user.id));
  await finishAllButFinalWithPreTest(w, learner.cookie);
  return learner;
}

t.test('who may fill it in: enrolled, every chapter done', async (t) => {
  const stranger = await w.newLearner(false);
  const notEnrolled = await as(w.app, stranger.cookie).post(url, GOOD_FORM);
  t.equal(notEnrolled.statusCode, 403, 'not enrolled');
  t.match(notEnrolled.json(), { success: false, error: /not enrolled/ });
  const early = await as(w.app, w.learner.cookie).post(url, GOOD_FORM);
  t.equal(early.statusCode, 403, 'chapters left');
  t.match(early.json().error, /every chapter/);
  t.equal((await as(w.app, w.learner.cookie).get(url)).json().open, false);
  const missing = await as(w.app, w.learner.cookie).post('/api/learning/courses/999999/evaluation', GOOD_FORM);
  t.equal(missing.statusCode, 404);
  const key = await w.app.inject({ method: 'POST', url, headers: { 'x-api-key': 'lms_nope' }, payload: GOOD_FORM });
  t.ok([401, 403].includes(key.statusCode), 'an API key or a bad one is refused');
  const noCsrf = await w.app.inject({ method: 'POST', url, headers: { cookie: w.learner.cookie }, payload: GOOD_FORM });
  t.equal(noCsrf.statusCode, 403, 'without the CSRF header');
});

t.test('wrong answers are 422, and nothing is kept', async (t) => {
  const learner = await readyLearner();
  const me = as(w.app, learner.cookie);
  const bad: [string, unknown][] = [
    ['0', { answers: { ...GOOD_FORM.answers, material: 0 } }],
    ['6', { answers: { ...GOOD_FORM.answers, speaker: 6 } }],
    ['2.5', { answers: { ...GOOD_FORM.answers, speaker: 2.5 } }],
    ['a missing item', { answers: { material: 5, speaker: 4, organisation: 3 } }],
    ['an unknown item', { answers: { ...GOOD_FORM.answers, extra: 3 } }],
    ['no answers', { comment: 'hi' }],
    ['answers as a list', { answers: [5, 4, 3, 5] }],
    ['a 10 KB comment', { ...GOOD_FORM, comment: 'x'.repeat(10_240) }],
    ['a NUL in the comment', { ...GOOD_FORM, comment: 'a\u0000b' }],
    ['a comment not text', { ...GOOD_FORM, comment: { a: 1 } }],
  ];
  for (const [what, body] of bad) {
    const r = await me.post(url, body);
    t.equal(r.statusCode, 422, what);
    t.match(r.json(), { success: false, error: String }, `${what}: the documented error shape`);
  }
  const kept = await w.db.select().from(evaluationCompletions).where(eq(evaluationCompletions.userId, learner.user.id));
  t.same(kept, [], 'no completion recorded');
  t.equal((await me.get(url)).json().open, true, 'the form is still open');
});

t.test('once only; the answers carry no learner', async (t) => {
  const learner = await readyLearner();
  const me = as(w.app, learner.cookie);
  const before = await w.db.select().from(evaluationResponses).where(eq(evaluationResponses.courseId, w.course.id));
  const first = await me.post(url, GOOD_FORM);
  t.equal(first.statusCode, 201, first.body);
  t.match(first.json(), { success: true, certificateCode: null }, 'the final exam is still to pass');
  const second = await me.post(url, { ...GOOD_FORM, comment: 'again' });
  t.equal(second.statusCode, 409);
  const after = await w.db.select().from(evaluationResponses).where(eq(evaluationResponses.courseId, w.course.id));
  t.equal(after.length, before.length + 1, 'one response');
  const columns = (
    await w.db.execute(sql`select column_name from information_schema.columns where table_name = 'evaluation_responses' order by 1`)
  ).rows.map((r) => (r as { column_name: string }).column_name);
  t.same(columns, ['answers', 'comment', 'course_id', 'id', 'submitted_on'], 'no user column at all');
  const mine = after.find((r) => r.comment === GOOD_FORM.comment)!;
  t.match(mine.submittedOn, /^\d{4}-\d{2}-\d{2}$/, 'the day only');
  t.same(mine.answers, GOOD_FORM.answers);
  t.equal((await me.get(url)).json().done, true);
});

t.test("the managers' summary: counts, averages, comments from 3 responses on; never who", async (t) => {
  const teacher = as(w.app, await sessionCookieFor(w.app, w.teacher.id));
  const summaryUrl = `${url}/summary`;
  const few = (await teacher.get(summaryUrl)).json();
  t.equal(few.responses, 1);
  t.equal(few.comments, null, 'one response: no comments');
  t.match(
    few.items[0],
    { key: 'material', average: null, counts: null },
    "one response: no average or counts (they would be that learner's answers)",
  );
  const names = ['Siti Aminah Evaluator', 'Budi Santoso Evaluator'];
  const writers = [];
  for (const name of names) {
    const l = await readyLearner(name);
    writers.push(l.user);
    const r = await as(w.app, l.cookie).post(url, {
      answers: { material: 1, speaker: 2, organisation: 3, relevance: 4 },
      comment: `From ${name.split(' ')[0]}'s heart`,
    });
    t.equal(r.statusCode, 201);
  }
  const res = await teacher.get(summaryUrl);
  t.equal(res.statusCode, 200);
  const s = res.json();
  t.equal(s.responses, 3);
  t.match(s.items[0], { key: 'material', average: 2.33, counts: [2, 0, 0, 0, 1] });
  t.equal(s.comments.length, 3, 'three responses: the comments');
  for (const [label, body] of [
    ['JSON', res.body],
    [
      'page',
      (
        await w.app.inject({
          url: `/learn/courses/${w.course.id}/evaluation/summary`,
          headers: { cookie: await sessionCookieFor(w.app, w.teacher.id) },
        })
      ).body,
    ],
  ] as const) {
    for (const u of writers) {
      t.notMatch(body, u.name, `${label}: no writer's name`);
      t.notMatch(body, u.id, `${label}: no writer's id`);
      t.notMatch(body, u.email, `${label}: no writer's e-mail`);
    }
  }
  const page = await w.app.inject({
    url: `/learn/courses/${w.course.id}/evaluation/summary`,
    headers: { cookie: await sessionCookieFor(w.app, w.teacher.id), 'accept-language': 'en' },
  });
  t.match(page.body, 'Evaluation summary');
  t.match(page.body, 'The material matched the learning objectives');
});

t.test('who may read the summary: the managers only', async (t) => {
  const summaryUrl = `${url}/summary`;
  const otherInstitution = await makeInstitution(w.db, 'Other');
  const refused = [
    await makeUser(w.db, { role: 'teacher', institutionId: w.course.institutionId }),
    await makeUser(w.db, { role: 'teacher', institutionId: otherInstitution }),
    await makeUser(w.db, { role: 'admin', institutionId: otherInstitution }),
  ];
  for (const u of refused) {
    const r = await as(w.app, await sessionCookieFor(w.app, u.id)).get(summaryUrl);
    t.equal(r.statusCode, 403, `${u.role} not managing the course`);
  }
  t.equal((await as(w.app, w.learner.cookie).get(summaryUrl)).statusCode, 403, 'a learner of the course');
  const page = await w.app.inject({ url: `/learn/courses/${w.course.id}/evaluation/summary`, headers: { cookie: w.learner.cookie } });
  t.equal(page.statusCode, 403, 'the page too');
  const admin = await makeUser(w.db, { role: 'admin', institutionId: w.course.institutionId });
  t.equal(
    (await as(w.app, await sessionCookieFor(w.app, admin.id)).get(summaryUrl)).statusCode,
    200,
    "an admin of the course's institution",
  );
  const elsewhere = await makeCourse(w.db, { teacherId: w.teacher.id, institutionId: w.course.institutionId });
  t.equal((await as(w.app, w.learner.cookie).get(`/api/learning/courses/${elsewhere.id}/evaluation/summary`)).statusCode, 403);
});

t.test('the page form: both languages, a wrong form says so, a right one goes back to the course', async (t) => {
  const learner = await readyLearner();
  for (const [lang, words] of [
    ['id', 'Materi sesuai dengan tujuan pembelajaran'],
    ['en', 'The material matched the learning objectives'],
  ] as const) {
    const form = await w.app.inject({
      url: `/learn/courses/${w.course.id}/evaluation`,
      headers: { cookie: learner.cookie, 'accept-language': lang },
    });
    t.equal(form.statusCode, 200);
    t.match(form.body, words);
    t.match(form.body, 'type="radio" name="answer.material" value="5"');
  }
  const post = (fields: Record<string, string>) =>
    w.app.inject({
      method: 'POST',
      url: `/learn/courses/${w.course.id}/evaluation`,
      headers: { cookie: learner.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' },
      payload: new URLSearchParams(fields).toString(),
    });
  const wrong = await post({ 'answer.material': '9', 'answer.speaker': '4', 'answer.organisation': '3', 'answer.relevance': '5' });
  t.equal(wrong.statusCode, 303);
  t.match(wrong.headers.location, /evaluation\?invalid=1$/);
  const right = await post({
    'answer.material': '5',
    'answer.speaker': '4',
    'answer.organisation': '3',
    'answer.relevance': '5',
    comment: 'Baik',
  });
  t.equal(right.statusCode, 303, right.body);
  t.equal(right.headers.location, `/dashboard/courses/${w.course.id}`);
  const done = await w.app.inject({
    url: `/learn/courses/${w.course.id}/evaluation`,
    headers: { cookie: learner.cookie, 'accept-language': 'en' },
  });
  t.match(done.body, 'You have filled in the evaluation');
});
