import { users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { findAnswerKeys } from '../helpers/answer-keys.js';
import { as, finishAllButFinal, learningWorld, takeQuiz } from './world.js';

const w = await learningWorld(t);
const [ch1, ch2] = w.chapterList;
const ORIGIN = 'http://localhost:3000';
await w.db.update(users).set({ name: 'Siti <Aminah>', membershipId: 'PKB-000123' }).where(eq(users.id, w.learner.user.id));

/** Answer-key text of every question of the fixtures: none of it may reach a learner. */
const KEY_TEXT = /Because a is right|An essay answer|isCorrect|is_correct|correctAnswer/;

function page(cookie: string | null, url: string, lang = 'id') {
  return w.app.inject({ url, headers: { ...(cookie ? { cookie } : {}), 'accept-language': lang } });
}
function form(cookie: string, url: string, fields: Record<string, string> = {}, origin: string | null = ORIGIN) {
  return w.app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
    payload: new URLSearchParams(fields).toString(),
  });
}

t.test('chapter page: content, mark complete by form, locked is a 403 page', async (t) => {
  const id = await page(w.learner.cookie, `/learn/chapters/${ch1!.id}`);
  t.equal(id.statusCode, 200);
  t.match(id.body, ch1!.content);
  t.match(id.body, 'Tandai selesai');
  const en = await page(w.learner.cookie, `/learn/chapters/${ch1!.id}`, 'en');
  t.match(en.body, 'Mark as complete');
  const locked = await page(w.learner.cookie, `/learn/chapters/${ch2!.id}`);
  t.equal(locked.statusCode, 403, 'locked');
  t.match(locked.body, `Bagian ini masih terkunci: selesaikan dulu bab “${ch1!.name}”.`, 'the 403 page says what opens it, in Indonesian');
  t.notMatch(locked.body, 'is locked', 'not the English of the JSON error');
  const lockedEn = await page(w.learner.cookie, `/learn/chapters/${ch2!.id}`, 'en');
  t.match(lockedEn.body, `This part is still locked: complete the chapter “${ch1!.name}” first.`);
  t.equal((await page(null, `/learn/chapters/${ch1!.id}`)).statusCode, 302, 'no session: to sign-in');

  t.equal((await form(w.learner.cookie, `/learn/chapters/${ch1!.id}/complete`, {}, null)).statusCode, 403, 'a form without Origin');
  t.equal(
    (await form(w.learner.cookie, `/learn/chapters/${ch1!.id}/complete`, {}, 'https://evil.example')).statusCode,
    403,
    'a foreign Origin',
  );
  const done = await form(w.learner.cookie, `/learn/chapters/${ch1!.id}/complete`);
  t.equal(done.statusCode, 303);
  t.equal(done.headers.location, `/learn/chapters/${ch1!.id}`);
  t.match((await page(w.learner.cookie, `/learn/chapters/${ch1!.id}`)).body, 'class="badge completed"');
});

t.test('quiz pages: start, the questions as a form without keys, fail once, pass', async (t) => {
  const quiz = await w.quizOfChapter(ch1!.id);
  const intro = await page(w.learner.cookie, `/learn/quizzes/${quiz.id}`);
  t.equal(intro.statusCode, 200);
  t.match(intro.body, 'Mulai mengerjakan');
  const started = await form(w.learner.cookie, `/learn/quizzes/${quiz.id}/start`);
  t.equal(started.statusCode, 303);
  const attemptUrl = started.headers.location as string;
  t.match(attemptUrl, /^\/learn\/quiz-attempts\/\d+$/);
  const formPage = await page(w.learner.cookie, attemptUrl, 'en');
  t.equal(formPage.statusCode, 200);
  t.notMatch(formPage.body, KEY_TEXT, 'no answer key in the quiz page');
  const [question] = await w.questionsOf(quiz.id);
  t.match(formPage.body, `name="q${question!.id}" value="a"`);
  const other = await w.newLearner();
  t.equal((await page(other.cookie, attemptUrl)).statusCode, 404, "another learner's attempt");

  const crafted = await form(w.learner.cookie, `${attemptUrl}/submit`, { [`q${question!.id}`]: 'b\u0000' });
  t.equal(
    crafted.statusCode,
    404,
    'a NUL in a form answer is refused like any malformed page request (the 404 page), not a 500 (jsonb refuses NUL)',
  );
  t.equal(
    (await form(w.learner.cookie, `${attemptUrl}/submit`, { [`q${question!.id}`]: 'b' })).statusCode,
    303,
    'and the attempt is still open',
  );
  const failed = await page(w.learner.cookie, attemptUrl, 'en');
  t.match(failed.body, 'Not passed');
  t.match(failed.body, 'Try again');
  t.notMatch(failed.body, KEY_TEXT);
  const retry = await form(w.learner.cookie, `/learn/quizzes/${quiz.id}/start`);
  t.equal((await form(w.learner.cookie, `${retry.headers.location}/submit`, { [`q${question!.id}`]: 'a' })).statusCode, 303);
  t.match((await page(w.learner.cookie, retry.headers.location as string)).body, 'Lulus');
});

t.test('certificate: printable page for its holder, public verification, forged codes 404', async (t) => {
  await finishAllButFinal(w, w.learner.cookie);
  const passed = await takeQuiz(w.app, w.learner.cookie, w.tree.finalQuizId, 'a');
  const code = passed.json().certificateCode as string;
  t.match(code, /^[0-9a-f]{32}$/);

  const printable = await page(w.learner.cookie, `/learn/certificates/${w.course.id}`, 'en');
  t.equal(printable.statusCode, 200);
  t.match(printable.body, 'Siti &lt;Aminah&gt;', 'the name, escaped');
  t.match(printable.body, 'PKB-000123');
  t.match(printable.body, w.course.name);
  t.match(printable.body, '4.5');
  t.match(printable.body, code);
  t.match((await page(w.learner.cookie, `/learn/certificates/${w.course.id}`)).body, 'Angka kredit');
  const other = await w.newLearner();
  t.equal((await page(other.cookie, `/learn/certificates/${w.course.id}`)).statusCode, 404, "another learner's certificate");

  const pub = await page(null, `/certificates/${code}`, 'en');
  t.equal(pub.statusCode, 200, 'no session needed');
  t.match(pub.body, 'This certificate is valid.');
  t.match(pub.body, 'Siti &lt;Aminah&gt;');
  t.notMatch(pub.body, 'PKB-000123', 'the membership number stays on the holder’s own page');
  const forged = code.slice(0, 31) + (code.endsWith('0') ? '1' : '0');
  for (const bad of [forged, 'a'.repeat(32), 'not-a-code', code.toUpperCase(), `${code}x`]) {
    const res = await page(null, `/certificates/${encodeURIComponent(bad)}`);
    t.equal(res.statusCode, 404, `forged ${bad}`);
    t.notMatch(res.body, 'Siti');
  }
});

t.test('no answer key in any learning answer; the routes are in the OpenAPI document with their errors', async (t) => {
  const me = as(w.app, w.learner.cookie);
  const answers = [
    await me.get(`/api/learning/chapters/${ch1!.id}`),
    await me.post(`/api/learning/chapters/${ch1!.id}/completion`),
    await me.post(`/api/learning/quizzes/${(await w.quizOfChapter(ch2!.id)).id}/attempts`),
    await me.get('/api/learning/certificates'),
  ];
  const started = answers[2]!.json();
  answers.push(
    await me.post(`/api/learning/quiz-attempts/${started.attemptId}/submission`, { answers: { [started.questions[0].id]: 'a' } }),
  );
  for (const [i, res] of answers.entries()) {
    t.ok(res.statusCode < 300, `answer ${i}: ${res.statusCode}`);
    t.same(findAnswerKeys(res.json()), [], `answer ${i}: no answer key`);
    t.notMatch(res.body, KEY_TEXT);
  }
  const doc = (await w.app.inject('/docs/json')).json();
  const expected: [string, string, string[]][] = [
    ['/api/learning/chapters/{id}', 'get', ['200', '401', '403', '404']],
    ['/api/learning/chapters/{id}/completion', 'post', ['200', '201', '401', '403', '404']],
    ['/api/learning/quizzes/{id}/attempts', 'post', ['200', '201', '401', '403', '404', '409']],
    ['/api/learning/quiz-attempts/{id}/submission', 'post', ['200', '400', '401', '403', '404', '409']],
    ['/api/learning/certificates', 'get', ['200', '401', '403']],
  ];
  for (const [path, method, statuses] of expected) {
    const op = doc.paths[path]?.[method];
    t.ok(op, `${method} ${path} documented`);
    for (const s of statuses) t.ok(op?.responses?.[s], `${method} ${path} ${s}`);
  }
});
