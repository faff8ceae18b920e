import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeCategory, makeCourse } from '../../helpers/catalog-fixtures.js';
import { manualClock } from '../../helpers/clock.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';
import { countQueries } from '../../helpers/query-counter.js';

// CATALOG_CACHE_MS: the API-key list (the same for every key) is computed once per page and
// period and shared by all keys; sessions always get a fresh answer.

const time = manualClock();
const { app, db: testDb } = await buildTestApp(t, { config: { CATALOG_CACHE_MS: 2_000 }, deps: { clock: time.clock } });
const db = testDb.db;
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const student = await makeUser(db, { role: 'student' });
const category = await makeCategory(db);
const first = await makeCourse(db, { teacherId: teacher.id, institutionId, categoryId: category.id, name: 'Audit Dasar' });
const keyA = { 'x-api-key': await apiKeyFor(db, teacher.id, 'storefront A') };
const keyB = { 'x-api-key': await apiKeyFor(db, teacher.id, 'storefront B') };
const studentSession = { cookie: await sessionCookieFor(app, student.id) };

const names = (res: { json: () => { courses: { name: string }[] } }) => res.json().courses.map((c) => c.name);
const list = (url: string, headers: Record<string, string>) => app.inject({ url, headers });

t.test('one answer per page, shared by every key until it is CATALOG_CACHE_MS old', async (t) => {
  time.at(0);
  const before = await list('/api/courses?limit=10', keyA);
  t.equal(before.statusCode, 200);
  t.same(names(before), ['Audit Dasar']);
  t.match(before.headers['content-type'], /^application\/json/);

  // A course published now is not in the shared answer yet, for either key ...
  await makeCourse(db, { teacherId: teacher.id, institutionId, categoryId: category.id, name: 'Pajak Lanjutan' });
  time.at(1.9);
  t.same(names(await list('/api/courses?limit=10', keyA)), ['Audit Dasar'], 'the same key, 1.9 s later');
  const other = await list('/api/courses?limit=10', keyB);
  t.same(names(other), ['Audit Dasar'], 'another key gets the same answer');
  t.equal(other.body, before.body, 'byte for byte');
  t.same(other.json().pagination, { page: 1, limit: 10, total: 1, totalPages: 1 });

  // ... another question is answered on its own ...
  t.same(names(await list('/api/courses?limit=10&sortBy=name', keyA)), ['Audit Dasar', 'Pajak Lanjutan'], 'another sort is another entry');
  t.same(names(await list('/api/courses?limit=9', keyA)), ['Pajak Lanjutan', 'Audit Dasar'], 'another limit too');
  // ... and once the answer is 2 s old it is computed again.
  time.at(2);
  t.same(names(await list('/api/courses?limit=10', keyA)), ['Pajak Lanjutan', 'Audit Dasar'], 'fresh after 2 s');
});

t.test('sessions are never served a shared answer', async (t) => {
  time.at(100);
  t.same(names(await list('/api/courses?limit=10', keyA)), ['Pajak Lanjutan', 'Audit Dasar']);
  await db.update(courses).set({ name: 'Audit Dasar (edisi 2)' }).where(eq(courses.id, first.id));
  t.same(
    names(await list('/api/courses?limit=10', studentSession)),
    ['Pajak Lanjutan', 'Audit Dasar (edisi 2)'],
    'a student sees the change at once',
  );
  t.same(names(await list('/api/courses?limit=10', keyA)), ['Pajak Lanjutan', 'Audit Dasar'], 'keys keep the shared answer for its 2 s');
});

t.test('concurrent first requests share one computation', async (t) => {
  time.at(200);
  // Warm the key lookups so only the list's own statements are counted.
  await Promise.all([keyA, keyB].map((headers) => list('/api/courses?limit=1', headers)));
  const counter = countQueries(db);
  t.teardown(() => counter.restore());
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => list('/api/courses?limit=5', i % 2 ? keyA : keyB)));
  t.same(
    answers.map((a) => a.statusCode),
    answers.map(() => 200),
  );
  t.equal(new Set(answers.map((a) => a.body)).size, 1, 'one answer');
  t.equal(counter.statements.length, 2, `20 requests, 2 statements (the page with its total, the trees): ${counter.statements.length}`);
});

t.test('a shared answer still counts against each key’s rate limit and carries its headers', async (t) => {
  time.at(400);
  const key = { 'x-api-key': await apiKeyFor(db, teacher.id, 'busy storefront') };
  for (let i = 0; i < 100; i += 1) {
    const res = await list('/api/courses?limit=2', key);
    if (res.statusCode !== 200) t.fail(`request ${i + 1}: ${res.statusCode}`);
  }
  const refused = await list('/api/courses?limit=2', key);
  t.equal(refused.statusCode, 429);
  t.same(refused.json(), { success: false, error: 'Rate limit exceeded' });
  const fine = await list('/api/courses?limit=2', keyB);
  t.equal(fine.statusCode, 200);
  t.ok(fine.headers.ratelimit, 'RateLimit header on a shared answer');
});

t.test('bad parameters are refused before anything is shared', async (t) => {
  const res = await list('/api/courses?limit=0', keyA);
  t.equal(res.statusCode, 400);
  t.match(res.json(), { success: false, error: /limit/ });
});
