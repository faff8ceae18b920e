import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { bySession, sampleDocument } from '../helpers/authoring.js';
import { manualClock } from '../helpers/clock.js';
import { creationHeaders, makeCourseCreator } from '../helpers/course-creation.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { browserOf } from '../pages/studio/helpers.js';

// Issue 40, Medium 6: no per-person limit on the costly new routes. 90 credit PDFs from one
// member used 7.3 s of CPU and raised others' p95 to 594 ms; authoring writes were unlimited. Now
// a person's documents (PDFs, CSV exports) and an author's requests (the authoring API, the
// studio's forms, a partner's course creation) each have a budget per sliding minute, refused
// past it with 429, Retry-After and the RateLimit fields, like the other budgets.

const time = manualClock(Date.parse('2026-11-27T03:00:00Z'));
const { app, db } = await buildTestApp(t, {
  config: { DOCUMENT_RATE_LIMIT_PER_MINUTE: 3, AUTHORING_RATE_LIMIT_PER_MINUTE: 4 },
  deps: { clock: time.clock },
});
const partner = await makeCourseCreator(db.db, 'limits.example');
const otherPartner = await makeCourseCreator(db.db, 'other-limits.example');
const owner = { institutionId: partner.institutionId, teacherId: partner.teacherId };
const member = await makeUser(db.db, { role: 'student', institutionId: partner.institutionId });
const bystander = await makeUser(db.db, { role: 'student', institutionId: partner.institutionId });

t.test("a member's documents: 3 a minute, whichever of them; past it 429 with Retry-After", async (t) => {
  time.set(Date.parse('2026-11-27T03:00:00Z'));
  const cookie = await sessionCookieFor(app, member.id);
  const get = (url: string, c = cookie) => app.inject({ url, headers: { cookie: `${c}; lms_lang=en` } });
  for (const [i, url] of ['/learn/credits.pdf', '/learn/credits.csv', '/learn/credits.pdf'].entries()) {
    const res = await get(url);
    t.equal(res.statusCode, 200, url);
    t.equal(res.headers['ratelimit-policy'], '"documents";q=3;w=60');
    t.equal(res.headers.ratelimit, `"documents";r=${2 - i};t=60`);
  }
  time.set(time.ms + 20_000);
  for (const url of ['/learn/credits.pdf', '/learn/credits.csv']) {
    const refused = await get(url);
    t.equal(refused.statusCode, 429, `the fourth document: ${url}`);
    t.equal(refused.headers['retry-after'], '40', 'until the oldest leaves the window');
    t.match(refused.body, 'Too many', 'as a page');
    t.notOk(refused.headers['content-type']?.toString().includes('pdf'), 'no PDF made');
  }
  t.equal((await get('/learn/credits', cookie)).statusCode, 200, 'the credits page itself is not a document');
  t.equal((await get('/learn/credits.pdf', await sessionCookieFor(app, member.id))).statusCode, 429, 'another session of the same person');
  t.equal((await get('/learn/credits.pdf', await sessionCookieFor(app, bystander.id))).statusCode, 200, 'a bystander has their own');
  time.set(time.ms + 40_000);
  t.equal((await get('/learn/credits.pdf')).statusCode, 200, 'once the oldest has left the window');
});

t.test("an author's requests: 4 a minute over the API and the studio; a partner's, 4 of its own", async (t) => {
  time.set(Date.parse('2026-11-27T04:00:00Z'));
  const teacher = await bySession(app, partner.teacherId);
  const created = await teacher('POST', '/api/course-documents', sampleDocument(owner));
  t.equal(created.status, 201);
  t.equal(created.headers['ratelimit-policy'], '"authoring";q=4;w=60');
  const courseId = created.body.courseId as number;
  t.equal((await teacher('PATCH', `/api/courses/${courseId}`, { name: 'Satu' })).status, 200);
  t.equal((await teacher('GET', `/api/courses/${courseId}/document`)).status, 200, 'a read counts too (an export can be a whole course)');
  const studio = await browserOf(app, partner.teacherId);
  t.equal((await studio.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Modul studio' })).status, 303, 'a studio form');
  time.set(time.ms + 15_000);
  const refused = await teacher('PATCH', `/api/courses/${courseId}`, { name: 'Dua' });
  t.equal(refused.status, 429, 'the fifth');
  t.same(refused.body, { success: false, error: 'Rate limit exceeded' });
  t.equal(refused.headers['retry-after'], '45');
  t.equal(refused.headers.ratelimit, '"authoring";r=0;t=45');
  t.equal((await studio.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Lagi' })).status, 429, 'the studio shares it');
  t.equal((await studio.get(`/dashboard/studio/courses/${courseId}/outline`)).status, 200, 'a studio page view is not counted');
  const [row] = (await db.db.execute(sql`select name from courses where id = ${courseId}`)).rows as { name: string }[];
  t.equal(row.name, 'Satu', 'nothing written past it');

  // A partner: its own budget, keyed by its issuer whatever the token (each is fresh anyway).
  // Tokens signed at the app's (manual) clock.
  const tokenOf = (p: typeof partner) => p.token(Math.floor(time.ms / 1000));
  const asPartner = (instructor: string) =>
    app.inject({
      method: 'PATCH',
      url: `/api/courses/${courseId}`,
      headers: creationHeaders(tokenOf(partner)),
      payload: JSON.stringify({ instructor }),
    });
  t.equal((await asPartner('Mitra')).statusCode, 200, "the partner is not the teacher's budget");
  const create = (p: typeof partner) =>
    app.inject({ method: 'POST', url: '/api/courses', headers: creationHeaders(tokenOf(p)), payload: JSON.stringify(p.body('Baru')) });
  for (let i = 0; i < 3; i++) t.equal((await create(partner)).statusCode, 201, `course creation ${i + 1} counts`);
  const overPartner = await create(partner);
  t.equal(overPartner.statusCode, 429, "the partner's fifth request");
  t.equal(overPartner.headers['retry-after'], '60');
  t.equal((await asPartner('X')).statusCode, 429, 'on every authoring route');
  t.equal((await create(otherPartner)).statusCode, 201, 'another partner is not held');
  time.set(time.ms + 60_000);
  t.equal((await teacher('PATCH', `/api/courses/${courseId}`, { name: 'Dua' })).status, 200, 'the teacher, a minute later');
  t.equal((await create(partner)).statusCode, 201, 'the partner, a minute later');
});
