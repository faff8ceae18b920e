import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeBundle, makeCategory, makeCourse } from '../helpers/catalog-fixtures.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// The limits of signed-in people and anonymous addresses, attacked as the trust review did: one
// member firing the most expensive read over and over (16 unpaginated lists at once took a
// bystander's p50 from 8 ms to 555 ms), the public API document fetched without end, and ten
// accounts from one address guessing an enrolment code five times each.

const time = manualClock();
const { app, db: testDb } = await buildTestApp(t, {
  config: { SESSION_RATE_LIMIT_PER_MINUTE: 5, DOCS_RATE_LIMIT_PER_MINUTE: 3, ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS: 6 },
  deps: { clock: time.clock },
});
const db = testDb.db;
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const category = await makeCategory(db);
const one = await makeCourse(db, { teacherId: teacher.id, institutionId, categoryId: category.id });
const two = await makeCourse(db, {
  teacherId: teacher.id,
  institutionId,
  categoryId: category.id,
  enrollmentType: 'code',
  enrollmentCode: 'RIGHT-CODE-1',
  isPurchasable: false,
});
await makeBundle(db, { categoryId: category.id, courseOneId: one.id, courseTwoId: two.id });
const member = await makeUser(db, { role: 'student' });
const bystander = await makeUser(db, { role: 'student' });
const cookie = await sessionCookieFor(app, member.id);

t.test("a member's costly reads share one budget per person; past it 429 with Retry-After and the RateLimit fields", async (t) => {
  time.at(10);
  const reads = ['/api/courses', '/api/recommended-courses', '/api/courses?limit=50', '/dashboard/catalog', '/dashboard/bundles'];
  for (const [i, url] of reads.entries()) {
    const res = await app.inject({ url, headers: { cookie } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.headers['ratelimit-policy'], '"session";q=5;w=60', `${url}: the policy`);
    t.equal(res.headers.ratelimit, `"session";r=${4 - i};t=60`, `${url}: what remains`);
  }
  time.at(40);
  const refused = await app.inject({ url: '/api/courses', headers: { cookie } });
  t.equal(refused.statusCode, 429);
  t.same(refused.json(), { success: false, error: 'Rate limit exceeded' });
  t.equal(refused.headers['retry-after'], '30', 'until the oldest counted read leaves the window');
  t.equal(refused.headers.ratelimit, '"session";r=0;t=30');
  const page = await app.inject({ url: '/dashboard/catalog', headers: { cookie, 'accept-language': 'en' } });
  t.equal(page.statusCode, 429, 'a page built on the same read too');
  t.match(page.body, 'Too many', 'as a page');
  t.equal(page.headers['retry-after'], '30');

  const second = await sessionCookieFor(app, member.id);
  t.equal(
    (await app.inject({ url: '/api/courses', headers: { cookie: second } })).statusCode,
    429,
    'a second session of the same person shares it',
  );
  const other = await sessionCookieFor(app, bystander.id);
  t.equal((await app.inject({ url: '/api/courses', headers: { cookie: other } })).statusCode, 200, 'a bystander has a budget of their own');
  t.equal((await app.inject({ url: `/api/courses/${one.id}`, headers: { cookie } })).statusCode, 200, 'a detail is not a costly read');
  t.equal(
    (await app.inject({ url: '/api/courses', headers: { 'x-api-key': await apiKeyFor(db, teacher.id) } })).headers['ratelimit-policy'],
    '"default";q=100;w=60',
    "an API key counts in its own key's window",
  );
  time.at(71);
  t.equal((await app.inject({ url: '/api/courses', headers: { cookie } })).statusCode, 200, 'allowed again once the oldest read left');
});

t.test('the API document: a budget per client address', async (t) => {
  time.at(200);
  const from = (remoteAddress: string) => app.inject({ url: '/docs/json', remoteAddress });
  for (let i = 0; i < 3; i++) t.equal((await from('192.0.2.7')).statusCode, 200, `request ${i + 1}`);
  const refused = await from('192.0.2.7');
  t.equal(refused.statusCode, 429);
  t.equal(refused.headers['retry-after'], '60');
  t.equal(refused.headers['ratelimit-policy'], '"address";q=3;w=60');
  t.equal((await from('192.0.2.8')).statusCode, 200, 'another address is not held');
  t.equal((await app.inject({ url: '/docs', remoteAddress: '192.0.2.7' })).statusCode, 200, 'the UI page itself is not counted');
});

t.test('enrolment codes: ten accounts from one address share its attempts at a course', async (t) => {
  time.at(400);
  const guess = async (userId: string, code: string, remoteAddress = '198.51.100.4') =>
    app.inject({
      method: 'POST',
      url: `/api/learning/courses/${two.id}/enrollment`,
      remoteAddress,
      headers: { cookie: await sessionCookieFor(app, userId), 'x-requested-with': 'test' },
      payload: { code },
    });
  const accounts = await Promise.all(Array.from({ length: 10 }, () => makeUser(db, { role: 'student' })));
  const statuses: number[] = [];
  for (const account of accounts) {
    statuses.push((await guess(account.id, 'GUESS-A')).statusCode);
    statuses.push((await guess(account.id, 'GUESS-B')).statusCode);
  }
  t.same(statuses.slice(0, 6), [400, 400, 400, 400, 400, 400], 'six wrong guesses from the address are answered');
  t.ok(
    statuses.slice(6).every((s) => s === 429),
    'every later guess from that address is refused, whichever account sends it',
  );
  const right = await guess(accounts[9]!.id, 'RIGHT-CODE-1');
  t.equal(right.statusCode, 429, 'even the right code: a refusal says nothing about the code');
  t.match(right.json().error, /Too many wrong enrolment codes/);
  t.equal((await guess(accounts[9]!.id, 'RIGHT-CODE-1', '203.0.113.9')).statusCode, 201, 'the same person from another address enrols');
});
