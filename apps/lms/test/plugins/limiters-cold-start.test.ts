import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LmsApp } from '../../src/app.js';
import type { LmsConfig } from '../../src/config.js';
import {
  memorySlidingWindowStore,
  redisSlidingWindowStore,
  storeWithFallback,
  type RateLimitPolicy,
} from '../../src/rate-limit/sliding-window.js';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser } from '../helpers/fixtures.js';
import { addRateLimitedTestRoutes } from '../helpers/rate-limited-routes.js';
import { redisForTest, redisProxy, testRedisUrl } from '../helpers/redis.js';
import { asSession, makeCast, makeCourse } from '../learning/enrolment-fixtures.js';

// A new instance (a start, a restart, a scale-out) must count in the shared window from its very
// first request. Its first Redis connection takes a few milliseconds to open; a limiter that took
// "not connected yet" for "Redis is down" counted those requests in its own memory, where every
// spent key and every blocked address starts afresh (27 of 30 requests on a spent key were let
// through). Each test spends the limit on one instance, then starts a second one and sends its
// first requests at once, concurrently.

const quiet = { info() {}, warn() {}, debug() {} };

t.test('the store: requests made while the first connection opens wait for it, then count in Redis', async (t) => {
  const { keyPrefix } = redisForTest(t, 'cold-store');
  const policy: RateLimitPolicy = { limit: 10, windowMs: 60_000 };
  const now = Date.now();
  const spender = storeWithFallback(
    redisSlidingWindowStore(policy, { url: testRedisUrl, keyPrefix }),
    memorySlidingWindowStore(policy),
    quiet,
  );
  t.teardown(() => spender.close());
  for (let i = 0; i < 10; i++) t.equal((await spender.hit('key', now)).allowed, true);

  const primary = redisSlidingWindowStore(policy, { url: testRedisUrl, keyPrefix });
  t.equal(primary.connection(), 'unknown', 'a new store: its first connection is still opening');
  const fresh = storeWithFallback(primary, memorySlidingWindowStore(policy), quiet);
  t.teardown(() => fresh.close());
  const decisions = await Promise.all(Array.from({ length: 30 }, () => fresh.hit('key', now + 1)));
  t.equal(decisions.filter((d) => d.allowed).length, 0, 'all 30 refused: the key was spent on the other store');
  t.match(fresh.stats, { redisCalls: 30, memoryAnswers: 0, redisFailures: 0, circuit: 'closed' });
  t.equal(primary.connection(), 'up');
});

/** A store of 2 per window whose Redis is behind `url`, asked 3 times at once before anything else. */
async function threeFirstHits(t: Test, url: string, firstConnectionWaitMs?: number) {
  const policy: RateLimitPolicy = { limit: 2, windowMs: 60_000 };
  const primary = redisSlidingWindowStore(policy, { url, keyPrefix: 'lms-test:never-answered:', firstConnectionWaitMs });
  const store = storeWithFallback(primary, memorySlidingWindowStore(policy), quiet);
  t.teardown(() => store.close());
  const decisions = await Promise.all(Array.from({ length: 3 }, () => store.hit('key', 1)));
  return { allowed: decisions.map((d) => d.allowed), connection: primary.connection(), stats: store.stats };
}

t.test('the store: a first connection that fails is "down" at once, and memory answers', async (t) => {
  const proxy = await redisProxy(t);
  await proxy.stop();
  const { allowed, connection, stats } = await threeFirstHits(t, proxy.url());
  t.same(allowed, [true, true, false], 'counted in memory, the limit held');
  t.equal(connection, 'down');
  t.match(stats, { redisCalls: 0, memoryAnswers: 3 });
});

t.test('the store: a Redis that accepts the connection and never answers is waited for at most firstConnectionWaitMs', async (t) => {
  const proxy = await redisProxy(t);
  proxy.proxy.stall();
  const { allowed, connection, stats } = await threeFirstHits(t, proxy.url(), 300);
  t.same(allowed, [true, true, false], 'past the wait: memory, the limit held');
  t.equal(connection, 'down', 'the connection is open but Redis never said it was ready');
  t.match(stats, { redisCalls: 0, memoryAnswers: 3 });
});

/**
 * Two instances on one database and one Redis, the second built only when the test says so. The
 * second reaches Redis through a proxy that holds its first connection open without an answer
 * until `firstRequests` has sent its requests and 300 ms more have passed: they are all made while
 * that instance's first connection is still opening, as on a busy start.
 */
async function twoInstances(t: Test, name: string, config: Partial<LmsConfig> = {}) {
  const { keyPrefix } = redisForTest(t, name);
  const time = manualClock();
  // REDIS_KEY_PREFIX: every limiter of these instances writes under this test's own prefix.
  const settings = { config: { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: keyPrefix, ...config }, deps: { clock: time.clock } };
  const first = await buildTestApp(t, settings);
  const proxy = await redisProxy(t);
  return {
    first,
    time,
    async firstRequests<T>(
      send: (app: LmsApp) => Promise<T>[],
      prepare: (app: LmsApp) => void = () => {},
    ): Promise<{ app: LmsApp; answers: T[] }> {
      proxy.proxy.stall();
      const { app } = await buildTestApp(t, { ...settings, config: { ...settings.config, REDIS_URL: proxy.url() }, db: first.db });
      prepare(app);
      const answers = Promise.all(send(app));
      setTimeout(() => proxy.proxy.resume(), 300);
      return { app, answers: await answers };
    },
  };
}

t.test('API-key rate limit: a second instance started on a spent key refuses its first 30 requests', async (t) => {
  const { first, time, firstRequests } = await twoInstances(t, 'cold-api-key');
  addRateLimitedTestRoutes(first.app);
  const teacher = await makeUser(first.db.db, { role: 'teacher' });
  const key = await apiKeyFor(first.db.db, teacher.id);
  time.at(1);
  for (let i = 0; i < 100; i++) {
    const res = await first.app.inject({ url: '/t', headers: { 'x-api-key': key } });
    if (res.statusCode !== 200) t.fail(`request ${i + 1} on the first instance got ${res.statusCode}`);
  }
  time.at(2);
  const { app, answers } = await firstRequests(
    (app) => Array.from({ length: 30 }, () => app.inject({ url: '/t', headers: { 'x-api-key': key } })),
    addRateLimitedTestRoutes,
  );
  t.same(
    answers.map((r) => r.statusCode),
    Array(30).fill(429),
    '30 × 429 from the first request on',
  );
  t.equal(answers[0]!.headers['retry-after'], '59', "the shared window's Retry-After");
  t.match(app.rateLimitStats(), { store: 'redis', memoryAnswers: 0, redisFailures: 0 });
});

t.test('failed credentials: a second instance refuses a blocked address from its first request', async (t) => {
  const LIMIT = 10;
  const { first, time, firstRequests } = await twoInstances(t, 'cold-failed-auth', { FAILED_AUTH_PER_MINUTE: LIMIT });
  const badKey = () => ({
    url: '/api/courses',
    headers: { 'x-api-key': `lms_key_${randomBytes(32).toString('base64url')}` },
    remoteAddress: '198.51.100.9',
  });
  time.at(1);
  for (let i = 0; i < LIMIT; i++) t.equal((await first.app.inject(badKey())).statusCode, 401);
  time.at(2);
  const { app, answers } = await firstRequests((app) => Array.from({ length: 10 }, () => app.inject(badKey())));
  t.same(
    answers.map((r) => r.statusCode),
    Array(10).fill(429),
    'every failure on the new instance is past the shared limit',
  );
  t.match(app.failedCredentials.stats(), { store: 'redis', memoryAnswers: 0, redisFailures: 0 });
});

t.test('enrolment codes: a second instance refuses the sixth attempt, the right code included', async (t) => {
  const { first, time, firstRequests } = await twoInstances(t, 'cold-enrolment-code');
  const cast = await makeCast(first.app, first.db.db);
  const course = await makeCourse(first.db.db, cast.teacher, { enrollmentType: 'code', enrollmentCode: 'RIGHT' });
  const enrol = (app: typeof first.app, code: string) =>
    app.inject({
      method: 'POST',
      url: `/api/learning/courses/${course.id}/enrollment`,
      headers: asSession(cast.learner.cookie),
      payload: { code },
    });
  time.at(1);
  for (let i = 1; i <= 5; i++) t.equal((await enrol(first.app, `guess-${i}`)).statusCode, 400, `wrong code ${i}`);
  time.at(2);
  const { answers } = await firstRequests((app) => [enrol(app, 'RIGHT'), enrol(app, 'guess-6'), enrol(app, 'RIGHT')]);
  t.same(
    answers.map((r) => r.statusCode),
    [429, 429, 429],
    'the new instance knows the five attempts from its first request',
  );
});
