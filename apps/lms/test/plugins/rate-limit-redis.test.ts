import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser } from '../helpers/fixtures.js';
import { addRateLimitedTestRoutes } from '../helpers/rate-limited-routes.js';
import { closedPort, redisForTest, testRedisUrl } from '../helpers/redis.js';

/**
 * The sliding window shared through Redis (REDIS_URL set): two LMS instances on one database and
 * one Redis allow 100 requests per key together, not 200; and what happens when Redis is away.
 */
t.test('two instances sharing Redis', async (t) => {
  const { keyPrefix, redis } = redisForTest(t, 'rate-limit');
  const time = manualClock();
  const config = { REDIS_URL: testRedisUrl };
  const deps = { clock: time.clock, rateLimit: { redisKeyPrefix: keyPrefix } };
  const { app: first, db } = await buildTestApp(t, { config, deps });
  const { app: second } = await buildTestApp(t, { config, deps, db });
  for (const app of [first, second]) {
    addRateLimitedTestRoutes(app);
    await app.ready();
  }
  const teacher = await makeUser(first.db, { role: 'teacher' });
  const get = (app: typeof first, key: string) => app.inject({ url: '/t', headers: { 'x-api-key': key } });

  t.test('together they allow 100 per key, not 200', async (t) => {
    const key = await apiKeyFor(first.db, teacher.id);
    time.at(0);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await get(i % 2 === 0 ? first : second, key)).statusCode);
    t.same(new Set(statuses), new Set([200]), '100 requests spread over both instances are allowed');
    const onFirst = await get(first, key);
    const onSecond = await get(second, key);
    t.equal(onFirst.statusCode, 429);
    t.equal(onSecond.statusCode, 429, 'the second instance sees the first one\'s requests');
    t.equal(onSecond.headers['retry-after'], '60');
    t.same(onSecond.json(), { success: false, error: 'Rate limit exceeded' });

    const stored = await redis.keys(`${keyPrefix}*`);
    t.equal(stored.length, 1, 'one sorted set for the key');
    t.match(stored[0], new RegExp(`^${keyPrefix}[0-9a-f]{16}$`), 'named by the first 16 hex characters of the hash');
    t.equal(await redis.zcard(stored[0]!), 100, 'the refused requests were not logged');
    const ttl = await redis.pttl(stored[0]!);
    t.ok(ttl > 0 && ttl <= 60_000, `the set expires with its newest entry (pttl ${ttl})`);
  });

  t.test('the sliding example holds across instances', async (t) => {
    const key = await apiKeyFor(first.db, teacher.id);
    const base = time.ms + 1_000_000;
    time.at(50, base);
    for (let i = 0; i < 100; i++) {
      const res = await get(i < 60 ? first : second, key);
      if (res.statusCode !== 200) t.fail(`request ${i} got ${res.statusCode}`);
    }
    time.at(61, base);
    const refused = await get(first, key);
    t.equal(refused.statusCode, 429);
    t.equal(refused.headers['retry-after'], '49');
    t.equal(refused.headers['ratelimit'], '"default";r=0;t=49');
    t.equal(refused.headers['ratelimit-policy'], '"default";q=100;w=60');
    time.at(110, base);
    const allowed = await get(second, key);
    t.equal(allowed.statusCode, 200);
    t.equal(allowed.headers['ratelimit'], '"default";r=99;t=60');
  });
});

t.test('Redis unreachable: fail open to the in-memory window of each instance, with a warning', async (t) => {
  const port = await closedPort();
  const lines: string[] = [];
  const time = manualClock();
  const { app } = await buildTestApp(t, {
    config: { REDIS_URL: `redis://127.0.0.1:${port}` },
    deps: {
      clock: time.clock,
      logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } },
      rateLimit: { redisKeyPrefix: 'lms-test:unreachable:' },
    },
  });
  addRateLimitedTestRoutes(app);
  await app.ready();
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const key = await apiKeyFor(app.db, teacher.id);

  time.at(50);
  const first = await app.inject({ url: '/t', headers: { 'x-api-key': key } });
  t.equal(first.statusCode, 200, 'the request is served although Redis is down');
  t.equal(first.headers['ratelimit'], '"default";r=99;t=60', 'and counted in memory');
  for (let i = 1; i < 100; i++) {
    const res = await app.inject({ url: '/t', headers: { 'x-api-key': key } });
    if (res.statusCode !== 200) t.fail(`request ${i} got ${res.statusCode}`);
  }
  time.at(61);
  const refused = await app.inject({ url: '/t', headers: { 'x-api-key': key } });
  t.equal(refused.statusCode, 429, 'the in-memory window still enforces the limit on this instance');
  t.equal(refused.headers['retry-after'], '49');

  const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
  t.equal(warnings.length, 1, 'one warning when Redis went away, not one per request');
  t.match(warnings[0].msg, /Redis unreachable/);
});
