import { evidenceLog } from '@lms/db';
import t from 'tap';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { learningWorld } from '../learning/world.js';

// The evidence trail: an admin of the course's institution or a super_admin reads a learner's
// entries (page and JSON) and corrects them with a reason, kept as an entry of its own; the
// owner teacher, another institution's admin, the learner and crafted forms are refused.

const w = await learningWorld(t);
const db = w.db;
const courseId = w.course.id;
const learner = w.learner.user;
const ORIGIN = 'http://localhost:3000';
await db.insert(evidenceLog).values([
  {
    userId: learner.id,
    courseId,
    kind: 'chapter_time',
    detail: { chapterId: w.chapterList[0]!.id, seconds: 600 },
    sessionId: 'a'.repeat(64),
    at: new Date('2026-03-01T01:00:00Z'),
  },
  {
    userId: learner.id,
    courseId,
    kind: 'post_test',
    detail: { score: 85 },
    sessionId: 'b'.repeat(64),
    at: new Date('2026-03-01T02:00:00Z'),
  },
]);
const cookieOf = async (role: 'student' | 'teacher' | 'admin' | 'super_admin', institutionId: number | null) =>
  sessionCookieFor(w.app, (await makeUser(db, { role, institutionId, name: `${role} person` })).id, 86_400_000);
const admin = await cookieOf('admin', w.course.institutionId);
const superAdmin = await cookieOf('super_admin', null);
const owner = await sessionCookieFor(w.app, w.teacher.id, 86_400_000);
const foreignAdmin = await cookieOf('admin', await makeInstitution(db, 'Other'));
const base = `/dashboard/courses/${courseId}/learners/${learner.id}/evidence`;
const get = (cookie: string, url: string, lang = 'en') => w.app.inject({ url, headers: { cookie, 'accept-language': lang } });
const post = (cookie: string, fields: Record<string, string>, origin = ORIGIN) =>
  w.app.inject({
    method: 'POST',
    url: `${base}/corrections`,
    headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });

t.test('the trail, as page and JSON, for the admins', async (t) => {
  for (const cookie of [admin, superAdmin]) {
    const json = await get(cookie, `${base}.json`);
    t.equal(json.statusCode, 200);
    t.match(json.json().entries, [
      { kind: 'chapter_time', session: 'aaaaaaaaaaaa', detail: { seconds: 600 } },
      { kind: 'post_test', detail: { score: 85 } },
    ]);
  }
  const page = await get(admin, base, 'id');
  t.equal(page.statusCode, 200);
  t.match(page.body, 'Jejak bukti');
  t.match(page.body, 'Post-test');
  const detail = await get(admin, `/dashboard/courses/${courseId}/learners/${learner.id}`);
  t.match(detail.body, `href="${base}"`, "linked from the learner's page");
});

t.test('a correction is its own entry, with its reason; the evaluation is marked done', async (t) => {
  const res = await post(admin, { evaluationDone: 'on', addMinutes: '30', reason: 'Paper form received on 2 March' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `${base}?corrected=saved`);
  const entries = (await get(superAdmin, `${base}.json`)).json().entries;
  t.equal(entries.length, 3, 'earlier entries untouched, one more');
  t.match(entries[2], {
    kind: 'correction',
    detail: { evaluationDone: true, addMinutes: 30 },
    reason: 'Paper form received on 2 March',
    actorName: 'admin person',
  });
  t.match(entries[1], { kind: 'post_test', detail: { score: 85 }, reason: null });
  const report = await get(owner, `/dashboard/courses/${courseId}/reports/participants.csv?basis=enrolment`);
  t.match(report.body, /,30,,,,"yes",/, 'the report counts the added minutes and the evaluation');
  t.match((await get(admin, `${base}?corrected=saved`)).body, 'The correction is saved.');
});

t.test('refused: the teacher, another institution, the learner; crafted forms change nothing', async (t) => {
  for (const cookie of [owner, foreignAdmin, w.learner.cookie]) {
    t.equal((await get(cookie, base)).statusCode, 403);
    t.equal((await get(cookie, `${base}.json`)).statusCode, 403);
    t.equal((await post(cookie, { evaluationDone: 'on', reason: 'x' })).statusCode, 403);
  }
  t.equal((await post(admin, { evaluationDone: 'on', reason: 'x' }, 'https://evil.example')).statusCode, 403, 'cross-site');
  for (const fields of <Record<string, string>[]>[
    { evaluationDone: 'on', reason: '' },
    { evaluationDone: 'on', reason: 'x'.repeat(501) },
    { addMinutes: '601', reason: 'too much' },
    { addMinutes: '-5', reason: 'negative' },
    { reason: 'changes nothing' },
    { addMinutes: 'lots', reason: 'not a number' },
  ]) {
    const res = await post(admin, fields);
    t.equal(res.statusCode, 303, JSON.stringify(fields).slice(0, 60));
    t.equal(res.headers.location, `${base}?corrected=invalid#correct`);
  }
  t.equal((await get(superAdmin, `${base}.json`)).json().entries.length, 3, 'no entry from a refused correction');
  const stranger = await w.newLearner(false);
  t.equal((await get(admin, `/dashboard/courses/${courseId}/learners/${stranger.user.id}/evidence.json`)).statusCode, 404, 'not enrolled');
  t.equal((await get(admin, `/dashboard/courses/999999/learners/${learner.id}/evidence.json`)).statusCode, 404, 'no such course');
  t.equal((await get(admin, `/dashboard/courses/${courseId}/learners/bad%20id/evidence.json`)).statusCode, 404, 'a crafted id');
});
