import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser } from '../helpers/fixtures.js';
import { addRateLimitedTestRoutes } from '../helpers/rate-limited-routes.js';
import { closedPort, redisForTest, redisProxy, testRedisUrl } from '../helpers/redis.js';

/**
 * The sliding window shared through Redis (REDIS_URL set): two LMS instances on one database and
 * one Redis allow 100 requests per key together, not 200; and what happens when Redis is away.
 */
t.test('two instances sharing Redis', async (t) => {
  const { keyPrefix, redis } = redisForTest(t, 'rate-limit');
  const time = manualClock();
  const config = { REDIS_URL: testRedisUrl };
  // A long command timeout: these tests are about sharing, and a busy test process (two apps, PGlite
  // in the same event loop) must not turn a slow reply into a fallback to memory.
  const deps = { clock: time.clock, rateLimit: { redisKeyPrefix: keyPrefix, redisCommandTimeoutMs: 5_000 } };
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
    t.equal(onSecond.statusCode, 429, "the second instance sees the first one's requests");
    t.equal(onSecond.headers['retry-after'], '60');
    t.same(onSecond.json(), { success: false, error: 'Rate limit exceeded' });

    const stored = await redis.keys(`${keyPrefix}*`);
    t.equal(stored.length, 1, 'one sorted set for the key');
    t.match(stored[0], new RegExp(`^${keyPrefix}[0-9a-f]{16}$`), 'named by the first 16 hex characters of the hash');
    t.equal(await redis.zcard(stored[0]!), 100, 'the refused requests were not logged');
    const ttl = await redis.pttl(stored[0]!);
    t.ok(ttl > 0 && ttl <= 60_000, `the set expires with its newest entry (pttl ${ttl})`);
  });

  t.test('concurrent requests on both instances: exactly 100 pass (the check-and-add is atomic)', async (t) => {
    const key = await apiKeyFor(first.db, teacher.id);
    time.at(0, time.ms + 1_000_000);
    const responses = await Promise.all(Array.from({ length: 160 }, (_, i) => get(i % 2 === 0 ? first : second, key)));
    const allowed = responses.filter((r) => r.statusCode === 200).length;
    const refused = responses.filter((r) => r.statusCode === 429).length;
    t.equal(allowed, 100);
    t.equal(refused, 60);
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
    t.equal(refused.headers.ratelimit, '"default";r=0;t=49');
    t.equal(refused.headers['ratelimit-policy'], '"default";q=100;w=60');
    time.at(110, base);
    const allowed = await get(second, key);
    t.equal(allowed.statusCode, 200);
    t.equal(allowed.headers.ratelimit, '"default";r=99;t=60');
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
  t.equal(first.headers.ratelimit, '"default";r=99;t=60', 'and counted in memory');
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
  t.equal(lines.length, 1, 'and nothing else at warn level or above');
  t.match(warnings[0].msg, /Redis unreachable/);
});

t.test('Redis going away and coming back: memory meanwhile, shared again after', async (t) => {
  const { keyPrefix, redis } = redisForTest(t, 'rate-limit-outage');
  const proxy = await redisProxy(t);
  const lines: string[] = [];
  const time = manualClock();
  const { app } = await buildTestApp(t, {
    config: { REDIS_URL: proxy.url() },
    deps: {
      clock: time.clock,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      // Refused connections fail at once; the timeout only keeps a loaded machine's slow answers
      // from being taken for an outage (the default 250 ms was, under CI load).
      rateLimit: { redisKeyPrefix: keyPrefix, redisCommandTimeoutMs: 2_000 },
    },
  });
  addRateLimitedTestRoutes(app);
  await app.ready();
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const key = await apiKeyFor(app.db, teacher.id);
  const get = () => app.inject({ url: '/t', headers: { 'x-api-key': key } });
  const stored = async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    return keys.length === 0 ? 0 : redis.zcard(keys[0]!);
  };
  const messages = () => lines.map((l) => JSON.parse(l)).filter((l) => /rate limit: Redis/.test(l.msg));

  time.at(0);
  for (let i = 0; i < 10; i++) t.equal((await get()).statusCode, 200);
  t.equal(await stored(), 10, 'counted in Redis while it is up');

  await proxy.stop();
  for (let i = 0; i < 5; i++) t.equal((await get()).statusCode, 200, 'served while Redis is down');
  t.equal(await stored(), 10, 'those were counted in memory, not in Redis');
  t.same(
    messages().map((m) => m.level),
    [40],
    'one warning',
  );

  await proxy.start();
  // ioredis reconnects in the background (backoff up to 2 s); requests meanwhile use memory.
  let attempts = 0;
  while (messages().length < 2 && attempts < 100) {
    attempts += 1;
    time.set(time.ms + 10);
    await get();
    if (messages().length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.same(
    messages().map((m) => m.level),
    [40, 30],
    'an info line once Redis is back',
  );
  t.ok((await stored()) > 10, 'requests are counted in Redis again');
});

t.test('Redis stalled (connected, never answering): a few requests wait, then the circuit answers from memory', async (t) => {
  const { keyPrefix, redis } = redisForTest(t, 'rate-limit-stall');
  const proxy = await redisProxy(t);
  const lines: string[] = [];
  const time = manualClock();
  const cooldownMs = 5_000;
  const { app } = await buildTestApp(t, {
    config: { REDIS_URL: proxy.url(), RATE_LIMIT_PER_MINUTE: 20 },
    deps: {
      clock: time.clock,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      // A command timeout long enough that a loaded machine's answering Redis is never taken for a
      // stalled one (the default 250 ms was, under CI load); the stall costs 3 + 2 of them.
      rateLimit: {
        redisKeyPrefix: keyPrefix,
        redisCommandTimeoutMs: 2_000,
        redisCircuit: { failureThreshold: 3, cooldownMs },
      },
    },
  });
  addRateLimitedTestRoutes(app);
  await app.ready();
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const key = await apiKeyFor(app.db, teacher.id);
  const get = () => app.inject({ url: '/t', headers: { 'x-api-key': key } });
  const stats = () => app.rateLimitStats() as Extract<ReturnType<typeof app.rateLimitStats>, { store: 'redis' }>;
  const stored = async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    return keys.length === 0 ? 0 : redis.zcard(keys[0]!);
  };

  time.at(0);
  for (let i = 0; i < 4; i++) t.equal((await get()).statusCode, 200);
  t.equal(await stored(), 4, 'shared through Redis while it answers');
  t.match(stats(), { circuit: 'closed', redisCalls: 4, redisFailures: 0 });

  proxy.proxy.stall();
  time.at(1);
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push((await get()).statusCode);
  const burst = await Promise.all(Array.from({ length: 20 }, () => get()));
  const waited = stats().redisFailures;
  t.comment(`stall: 50 requests, ${waited} waited on Redis (timed out), ${stats().memoryAnswers} answered from memory without asking`);
  t.equal(waited, 3, 'only the first 3 waited for the command timeout, not one per request');
  t.equal(stats().circuit, 'open');
  const allowed = statuses.filter((s) => s === 200).length + burst.filter((r) => r.statusCode === 200).length;
  t.equal(allowed, 20, 'the limit (20) still holds, in memory');

  // Each cooldown, one request probes the stalled Redis; the others keep using memory.
  for (let round = 1; round <= 2; round++) {
    time.at(1 + (round * cooldownMs) / 1000);
    await Promise.all(Array.from({ length: 10 }, () => get()));
    t.equal(stats().redisFailures, 3 + round, `cooldown ${round}: one more request waited (the probe)`);
    t.equal(stats().circuit, 'open');
  }

  proxy.proxy.resume();
  time.at(1 + (3 * cooldownMs) / 1000);
  t.equal((await get()).statusCode, 200, 'the probe gets its answer from Redis');
  t.equal(stats().circuit, 'closed');
  const before = await stored();
  const shared = await get();
  t.equal(await stored(), before + 1, 'requests are counted in Redis again');
  t.match(shared.headers.ratelimit, `"default";r=${20 - before - 1};`, 'and answered from the shared window');

  const messages = lines.map((l) => JSON.parse(l)).filter((l) => /^rate limit:/.test(l.msg));
  t.same(
    messages.map((m) => [m.level, m.msg.replace(/,.*$/, '')]),
    [
      [40, 'rate limit: Redis unreachable'],
      [30, 'rate limit: circuit open'],
      [30, 'rate limit: Redis is back'],
    ],
    'one line per change of state',
  );
});
