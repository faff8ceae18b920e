import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeBundle, makeCategory, makeCourse } from '../../helpers/catalog-fixtures.js';
import { manualClock } from '../../helpers/clock.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// The three catalog endpoints share one sliding window of 100 requests a minute per API key.
t.test('catalog endpoints count against one per-key window and answer 429 past 100', async (t) => {
  const time = manualClock();
  const { app, db } = await buildTestApp(t, { deps: { clock: time.clock } });
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const category = await makeCategory(db.db);
  const one = await makeCourse(db.db, { teacherId: teacher.id, institutionId, categoryId: category.id });
  const two = await makeCourse(db.db, { teacherId: teacher.id, institutionId, categoryId: category.id });
  await makeBundle(db.db, { categoryId: category.id, courseOneId: one.id, courseTwoId: two.id });
  const key = await apiKeyFor(db.db, teacher.id);
  const other = await apiKeyFor(db.db, teacher.id, 'second key');

  const urls = ['/api/courses?limit=1', `/api/courses/${one.id}`, '/api/recommended-courses'];
  time.at(50);
  for (let i = 0; i < 100; i += 1) {
    const res = await app.inject({ url: urls[i % 3]!, headers: { 'x-api-key': key } });
    if (res.statusCode !== 200) t.fail(`request ${i + 1} got ${res.statusCode}`);
  }
  const last = await app.inject({ url: urls[2]!, headers: { 'x-api-key': key } });
  t.equal(last.statusCode, 429);
  t.same(last.json(), { success: false, error: 'Rate limit exceeded' });
  t.equal(last.headers['retry-after'], '60');

  // Sliding, not fixed: 11 s later the window still holds all 100 requests.
  time.at(61);
  const later = await app.inject({ url: urls[0]!, headers: { 'x-api-key': key } });
  t.equal(later.statusCode, 429);
  t.equal(later.headers['retry-after'], '49');

  t.equal((await app.inject({ url: urls[0]!, headers: { 'x-api-key': other } })).statusCode, 200, 'another key has its own window');
  const cookie = await sessionCookieFor(app, teacher.id);
  t.equal((await app.inject({ url: urls[0]!, headers: { cookie } })).statusCode, 200, 'sessions are not rate limited');

  time.at(110);
  t.equal((await app.inject({ url: urls[1]!, headers: { 'x-api-key': key } })).statusCode, 200, 'allowed again once the oldest request left the window');
});
