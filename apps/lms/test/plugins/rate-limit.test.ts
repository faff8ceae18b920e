import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { addRateLimitedTestRoutes } from '../helpers/rate-limited-routes.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

/**
 * The per-API-key sliding window (in memory), through HTTP on test-only routes shaped like the
 * catalog's: `config: { auth: true, rateLimited: true }`.
 */
const POLICY = '"default";q=100;w=60';

async function setup(t: Test) {
  const time = manualClock();
  const { app } = await buildTestApp(t, { deps: { clock: time.clock } });
  const db = app.db;
  addRateLimitedTestRoutes(app);
  await app.ready();
  const teacher = await makeUser(db, { role: 'teacher' });
  return { app, db, time, teacher };
}

t.test('rate limit (memory store)', async (t) => {
  const { app, db, time, teacher } = await setup(t);
  const get = (key: string, url = '/t') => app.inject({ url, headers: { 'x-api-key': key } });
  /** A fresh key and a fresh stretch of time per test, so windows never overlap. */
  let stretch = 0;
  async function freshKey() {
    stretch += 1;
    return { key: await apiKeyFor(db, teacher.id), base: time.ms + stretch * 1_000_000 };
  }

  t.test('the sliding example: 100 at t=50 s, then one at t=61 s is refused with Retry-After 49', async (t) => {
    const { key, base } = await freshKey();
    time.at(50, base);
    for (let i = 1; i <= 100; i++) {
      const res = await get(key);
      if (res.statusCode !== 200) t.fail(`request ${i} got ${res.statusCode}`);
      if (i === 1) t.equal(res.headers.ratelimit, '"default";r=99;t=60', 'first request: 99 left');
      if (i === 100) t.equal(res.headers.ratelimit, '"default";r=0;t=60', 'hundredth request: none left');
      if (res.headers['ratelimit-policy'] !== POLICY) t.fail(`request ${i}: policy header ${res.headers['ratelimit-policy']}`);
    }
    // A fixed one-minute window would have started afresh at t=60 s; the sliding one has not.
    time.at(61, base);
    const refused = await get(key);
    t.equal(refused.statusCode, 429);
    t.same(refused.json(), { success: false, error: 'Rate limit exceeded' });
    t.equal(refused.headers['retry-after'], '49');
    t.equal(refused.headers['ratelimit-policy'], POLICY);
    t.equal(refused.headers.ratelimit, '"default";r=0;t=49');

    time.set(base + 109_999);
    const stillRefused = await get(key);
    t.equal(stillRefused.statusCode, 429, 'one millisecond before the window frees a slot');
    t.equal(stillRefused.headers['retry-after'], '1', 'Retry-After rounds up to whole seconds');

    time.at(110, base);
    const allowed = await get(key);
    t.equal(allowed.statusCode, 200, 'allowed exactly when Retry-After said');
    t.equal(allowed.headers.ratelimit, '"default";r=99;t=60', 'all 100 left the window at once');
  });

  t.test('the window slides: old requests leave it one by one, refused ones never count', async (t) => {
    const { key, base } = await freshKey();
    time.at(0, base);
    for (let i = 0; i < 50; i++) await get(key);
    time.at(30, base);
    for (let i = 0; i < 50; i++) await get(key);
    t.equal((await get(key)).statusCode, 429, 'full at t=30 s');

    time.at(61, base);
    const first = await get(key);
    t.equal(first.statusCode, 200, 'the 50 of t=0 left the window');
    t.equal(first.headers.ratelimit, '"default";r=49;t=29', 'the 50 of t=30 are still in it');
    for (let i = 0; i < 49; i++) await get(key);
    for (let i = 0; i < 5; i++) {
      const refused = await get(key);
      t.equal(refused.statusCode, 429);
      t.equal(refused.headers['retry-after'], '29');
    }

    time.at(90, base);
    const later = await get(key);
    t.equal(later.statusCode, 200);
    t.equal(later.headers.ratelimit, '"default";r=49;t=31', 'the refused requests took no place in the window');
  });

  t.test('each key has its own window; sessions and unauthenticated calls are not counted', async (t) => {
    const { key, base } = await freshKey();
    const other = await apiKeyFor(db, teacher.id, 'second key of the same teacher');
    time.at(0, base);
    for (let i = 0; i < 100; i++) await get(key);
    t.equal((await get(key)).statusCode, 429);

    const otherRes = await get(other);
    t.equal(otherRes.statusCode, 200, 'another key of the same teacher is not limited');
    t.equal(otherRes.headers.ratelimit, '"default";r=99;t=60');

    const cookie = await sessionCookieFor(app, teacher.id);
    const sessionAnswers: string[] = [];
    for (let i = 0; i < 105; i++) {
      const res = await app.inject({ url: '/t', headers: { cookie } });
      sessionAnswers.push(`${res.statusCode} ${res.headers.ratelimit ?? 'no RateLimit'}`);
    }
    t.same(sessionAnswers, Array(105).fill('200 no RateLimit'), '105 session requests in one instant, all 200 without rate-limit fields');

    const unknown = await get(`lms_key_${randomBytes(32).toString('base64url')}`);
    t.equal(unknown.statusCode, 401, 'an unknown key is refused by auth before the limiter');
    t.equal(unknown.headers.ratelimit, undefined);
  });

  t.test('the fields come with every API-key response of a limited route, errors too, and only there', async (t) => {
    const { key, base } = await freshKey();
    time.at(0, base);
    const notFound = await get(key, '/t/missing');
    t.equal(notFound.statusCode, 404);
    t.same(notFound.json(), { success: false, error: 'Course not found' });
    t.equal(notFound.headers['ratelimit-policy'], POLICY);
    t.equal(notFound.headers.ratelimit, '"default";r=99;t=60', 'a 404 counts too');

    const unlimited = await get(key, '/t/unlimited');
    t.equal(unlimited.statusCode, 200);
    t.equal(unlimited.headers.ratelimit, undefined, 'a route without rateLimited is not limited');
    t.equal(unlimited.headers['ratelimit-policy'], undefined);

    const next = await get(key);
    t.equal(next.headers.ratelimit, '"default";r=98;t=60', 'the unlimited route took nothing from the window');
  });
});
