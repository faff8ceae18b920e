import t from 'tap';
import { makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { as, enrol, learningWorld } from './world.js';

// Time on a chapter (docs/architecture.md, "Time on a chapter"): the server credits the time
// between the chapter page's heartbeats, capped, never a figure the client sends; a course whose
// credit requires a share of each chapter's expected minutes refuses a completion until it is spent.

const w = await learningWorld(t);
const [ch1, ch2] = w.chapterList;
const me = as(w.app, w.learner.cookie);
const beatUrl = (id: number) => `/api/learning/chapters/${id}/heartbeat`;
const beat = (id = ch1!.id, cookie = w.learner.cookie) => as(w.app, cookie).post(beatUrl(id), { visible: true });
const count = async (q: string) => (await w.db.execute(q)).rows.map((r) => (r as { n: number }).n)[0];
const start = w.time.ms;

// SKP-KEMENKES (migration 0020) requires 80% of each chapter's expected minutes; ch1 expects 5: 240 s.
await w.db.execute(
  `insert into course_accreditations (course_id, scheme, reference, valid_from, value)
   values (${w.course.id}, 'SKP-KEMENKES', 'KEP-TEST/1', '2026-01-01T00:00:00Z', 2)`,
);
await w.db.execute(`update chapters set expected_minutes = 5 where id = ${ch1!.id}`);

t.test('heartbeats credit the server time between them, capped; a completion waits for the share', async (t) => {
  const first = await beat();
  t.equal(first.statusCode, 200, first.body);
  t.same(
    first.json().time,
    { expectedMinutes: 5, activeSeconds: 0, requiredSeconds: 240, remainingSeconds: 240 },
    'the first beat starts the clock',
  );

  const early = await me.post(`/api/learning/chapters/${ch1!.id}/completion`);
  t.equal(early.statusCode, 409, 'too early');
  t.match(early.json(), { success: false, error: /4 min more/ });

  w.time.at(5, start);
  t.equal((await beat()).json().time.activeSeconds, 0, 'a beat 5 s later is counted, credits nothing');
  w.time.at(35, start);
  t.equal((await beat()).json().time.activeSeconds, 30, '30 s after the previous beat: 30 s');
  w.time.at(3635, start);
  t.equal((await beat()).json().time.activeSeconds, 90, 'an hour away credits 60 s at most');

  const forged = await me.post(beatUrl(ch1!.id), { visible: true, activeSeconds: 99_999 });
  t.equal(forged.statusCode, 400, 'a client total is refused, not read');
  t.equal(await count(`select active_seconds as n from chapter_time where chapter_id = ${ch1!.id}`), 90);

  for (let i = 1; i <= 4; i++) {
    w.time.at(3635 + 30 * i, start);
    await beat();
  }
  const almost = await me.post(`/api/learning/chapters/${ch1!.id}/completion`);
  t.equal(almost.statusCode, 409);
  t.match(almost.json().error, /: 30 s more/, 'the time left, in seconds');
  t.equal(await count(`select count(*)::int as n from evidence_log where kind = 'chapter_time'`), 0, 'no time evidence yet');

  w.time.at(3635 + 150, start);
  const reached = await beat();
  t.same(reached.json().time, { expectedMinutes: 5, activeSeconds: 240, requiredSeconds: 240, remainingSeconds: 0 });
  w.time.at(3635 + 180, start);
  await beat();
  t.equal(
    await count(`select count(*)::int as n from evidence_log where kind = 'chapter_time' and user_id = '${w.learner.user.id}'`),
    1,
    'one time evidence entry, not one per beat',
  );
  t.equal(
    await count(`select beats as n from chapter_time where chapter_id = ${ch1!.id}`),
    10,
    'every beat counted (the refused one is not)',
  );

  const done = await me.post(`/api/learning/chapters/${ch1!.id}/completion`);
  t.equal(done.statusCode, 201, done.body);
  t.equal(done.json().chapter.expectedMinutes, 5);
  t.equal(await count(`select count(*)::int as n from evidence_log where kind = 'chapter_completed'`), 1, 'the completion is evidence');
  t.equal((await me.post(`/api/learning/chapters/${ch1!.id}/completion`)).statusCode, 200, 'again: 200, no second entry');
  t.equal(await count(`select count(*)::int as n from evidence_log where kind = 'chapter_completed'`), 1);
});

t.test('who may beat: the same refusals as opening the chapter, and a tiny exact body', async (t) => {
  const stranger = await w.newLearner(false);
  const notEnrolled = await beat(ch1!.id, stranger.cookie);
  t.equal(notEnrolled.statusCode, 403);
  t.match(notEnrolled.json(), { success: false, error: /not enrolled/ });

  // Another institution's teacher, enrolled nowhere here.
  const otherInstitution = await makeInstitution(w.db, 'Other');
  const otherTeacher = await makeUser(w.db, { role: 'teacher', institutionId: otherInstitution });
  t.equal((await beat(ch1!.id, await sessionCookieFor(w.app, otherTeacher.id))).statusCode, 403, "another institution's teacher");

  const fresh = await w.newLearner();
  const locked = await beat(ch2!.id, fresh.cookie);
  t.equal(locked.statusCode, 403, 'a locked chapter');
  t.match(locked.json().error, /locked/);
  t.equal((await beat(99_999_999, fresh.cookie)).statusCode, 404);

  const key = await apiKeyFor(w.db, w.teacher.id);
  const byKey = await w.app.inject({ method: 'POST', url: beatUrl(ch1!.id), headers: { 'x-api-key': key }, payload: { visible: true } });
  t.equal(byKey.statusCode, 403, 'an API key');
  t.equal((await w.app.inject({ method: 'POST', url: beatUrl(ch1!.id), payload: { visible: true } })).statusCode, 401);
  const noCsrf = await w.app.inject({
    method: 'POST',
    url: beatUrl(ch1!.id),
    headers: { cookie: fresh.cookie },
    payload: { visible: true },
  });
  t.equal(noCsrf.statusCode, 403, 'without x-requested-with');

  const fm = as(w.app, fresh.cookie);
  for (const body of [{ visible: false }, {}, { visible: 'yes' }, [true]]) {
    const res = await fm.post(beatUrl(ch1!.id), body);
    t.equal(res.statusCode, 400, JSON.stringify(body));
    t.equal(res.json().success, false);
  }
  const big = await w.app.inject({
    method: 'POST',
    url: beatUrl(ch1!.id),
    headers: { cookie: fresh.cookie, 'x-requested-with': 't', 'content-type': 'application/json' },
    payload: JSON.stringify({ visible: true, pad: 'x'.repeat(4096) }),
  });
  t.equal(big.statusCode, 413, 'a body over 1 KiB');
  t.equal((await fm.post(beatUrl(Number.NaN))).statusCode, 400, 'a bad id');
  t.equal(
    await count(
      `select count(*)::int as n from chapter_time where user_id in ('${stranger.user.id}', '${fresh.user.id}', '${otherTeacher.id}')`,
    ),
    0,
    'no refused beat wrote anything',
  );
});

t.test("another member's time is theirs: beats of one learner do not move another's", async (t) => {
  const a = await w.newLearner();
  const b = await w.newLearner();
  w.time.at(10_000, start);
  await beat(ch1!.id, a.cookie);
  w.time.at(10_060, start);
  t.equal((await beat(ch1!.id, a.cookie)).json().time.activeSeconds, 60);
  const bFirst = await beat(ch1!.id, b.cookie);
  t.equal(bFirst.json().time.activeSeconds, 0, "b's first beat credits nothing, whatever a did");
  t.equal((await as(w.app, b.cookie).post(`/api/learning/chapters/${ch1!.id}/completion`)).statusCode, 409);
});

t.test('a course without accreditation completes as before: no time asked, nothing written', async (t) => {
  const institutionId = await makeInstitution(w.db, 'Plain');
  const teacher = await makeUser(w.db, { role: 'teacher', institutionId });
  const plain = await makeCourse(w.db, { teacherId: teacher.id, institutionId });
  const tree = await makeCourseTree(w.db, plain.id, [1]);
  const learner = await w.newLearner(false);
  await enrol(w.db, learner.user.id, plain.id);
  const chapter = tree.modules[0]!.chapters[0]!;
  const done = await as(w.app, learner.cookie).post(`/api/learning/chapters/${chapter.id}/completion`);
  t.equal(done.statusCode, 201, done.body);
  t.equal(await count(`select count(*)::int as n from evidence_log where user_id = '${learner.user.id}'`), 0);
  t.equal(await count(`select count(*)::int as n from chapter_time where user_id = '${learner.user.id}'`), 0);
  const beatThere = await beat(chapter.id, learner.cookie);
  t.equal(beatThere.statusCode, 200);
  t.equal(beatThere.json().time.requiredSeconds, null, 'time is still measured, nothing required');
});

t.test('an accreditation not yet in force requires nothing', async (t) => {
  const institutionId = await makeInstitution(w.db, 'Later');
  const teacher = await makeUser(w.db, { role: 'teacher', institutionId });
  const later = await makeCourse(w.db, { teacherId: teacher.id, institutionId });
  const tree = await makeCourseTree(w.db, later.id, [1]);
  await w.db.execute(
    `insert into course_accreditations (course_id, scheme, reference, valid_from, value)
     values (${later.id}, 'SKP-KEMENKES', 'KEP-LATER', '2030-01-01T00:00:00Z', 2)`,
  );
  const learner = await w.newLearner(false);
  await enrol(w.db, learner.user.id, later.id);
  const done = await as(w.app, learner.cookie).post(`/api/learning/chapters/${tree.modules[0]!.chapters[0]!.id}/completion`);
  t.equal(done.statusCode, 201);
});

t.test("the chapter page: expected minutes, the time left, the beating script, a refused form said in the person's language", async (t) => {
  const learner = await w.newLearner();
  const page = (url: string, lang = 'id') => w.app.inject({ url, headers: { cookie: learner.cookie, 'accept-language': lang } });
  const url = `/learn/chapters/${ch1!.id}`;
  const id = await page(url);
  t.equal(id.statusCode, 200);
  t.match(id.body, 'Perkiraan waktu belajar: 5 menit.');
  t.match(id.body, 'masih 4 menit lagi sebelum bab ini dapat ditandai selesai');
  t.match(id.body, '<script src="/dashboard/assets/chapter-time.js" defer></script>');
  t.match(
    id.body,
    /data-script="\{&quot;url&quot;:&quot;\/api\/learning\/chapters\/\d+\/heartbeat&quot;/,
    'the script is told where to beat, as text',
  );
  t.match((await page(url, 'en')).body, 'Expected time: 5 minutes.');

  const refused = await w.app.inject({
    method: 'POST',
    url: `${url}/complete`,
    headers: { cookie: learner.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' },
    payload: '',
  });
  t.equal(refused.statusCode, 303, 'too early: back to the chapter');
  t.equal(refused.headers.location, `${url}?early=1`);
  t.match((await page(`${url}?early=1`)).body, 'Belum dapat ditandai selesai: masih 4 menit lagi di halaman ini');
  t.match((await page(`${url}?early=1`, 'en')).body, 'Not complete yet: 4 min more on this page');
  t.notMatch((await page(`${url}?early=<b>`)).body, 'Belum dapat', 'any other value is ignored');

  const script = await w.app.inject({ url: '/dashboard/assets/chapter-time.js' });
  t.equal(script.statusCode, 200);
  t.match(script.headers['content-type'], /javascript/);
  t.match(script.body, "'x-requested-with'");
  t.match(script.body, 'visibilityState');
});
