import t from 'tap';
import { ConfigError, loadConfig } from '../../../src/config.js';
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
  t.equal(
    (await app.inject({ url: urls[0]!, headers: { cookie } })).statusCode,
    200,
    "a session is not counted in the key's window (it has its own budget)",
  );

  time.at(110);
  t.equal(
    (await app.inject({ url: urls[1]!, headers: { 'x-api-key': key } })).statusCode,
    200,
    'allowed again once the oldest request left the window',
  );
});

// RATE_LIMIT_PER_MINUTE: the deployment's limit, enforced on every rate-limited route and quoted
// by the OpenAPI document; a bad value stops the start.
t.test('RATE_LIMIT_PER_MINUTE=3: the 4th request of a key is refused, and the OpenAPI texts say 3', async (t) => {
  t.equal(loadConfig({}).RATE_LIMIT_PER_MINUTE, 100, "the spec's 100 by default");
  t.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '' }).RATE_LIMIT_PER_MINUTE, 100, 'empty is unset');
  t.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '3' }).RATE_LIMIT_PER_MINUTE, 3);
  for (const bad of ['0', '-5', '2.5', 'many']) {
    t.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: bad }), ConfigError, `${bad} is refused`);
    t.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: bad }), /RATE_LIMIT_PER_MINUTE: /, `${bad}: the message names the variable`);
  }

  const time = manualClock();
  const { app, db } = await buildTestApp(t, { config: loadConfigWith({ RATE_LIMIT_PER_MINUTE: '3' }), deps: { clock: time.clock } });
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const category = await makeCategory(db.db);
  const course = await makeCourse(db.db, { teacherId: teacher.id, institutionId, categoryId: category.id });
  const key = await apiKeyFor(db.db, teacher.id);
  const progressKey = await apiKeyFor(db.db, teacher.id, 'progress key');

  time.at(10);
  const urls = ['/api/courses?limit=1', `/api/courses/${course.id}`, '/api/recommended-courses'];
  for (const [i, url] of urls.entries()) {
    const res = await app.inject({ url, headers: { 'x-api-key': key } });
    t.equal(res.statusCode, 200, `request ${i + 1} allowed`);
    t.equal(res.headers['ratelimit-policy'], '"default";q=3;w=60');
  }
  const fourth = await app.inject({ url: urls[0]!, headers: { 'x-api-key': key } });
  t.equal(fourth.statusCode, 429, 'the 4th request is refused');
  t.same(fourth.json(), { success: false, error: 'Rate limit exceeded' });

  for (let i = 1; i <= 3; i += 1) {
    t.equal((await app.inject({ url: '/api/lms-progress', headers: { 'x-api-key': progressKey } })).statusCode, 200, `progress ${i}`);
  }
  t.equal(
    (await app.inject({ url: '/api/lms-progress', headers: { 'x-api-key': progressKey } })).statusCode,
    429,
    'progress: the 4th is refused',
  );

  const doc = (await app.inject({ url: '/docs/json' })).json() as {
    info: { description: string };
    paths: Record<string, { get: { description: string; responses: Record<string, { description: string }> } }>;
  };
  t.match(doc.info.description, 'limited to 3 per key in any sliding 60-second window');
  t.match(doc.info.description, '`RateLimit-Policy: "default";q=3;w=60`');
  for (const path of ['/api/courses', '/api/courses/{id}', '/api/recommended-courses']) {
    t.match(doc.paths[path]!.get.responses['429']!.description, 'API-key rate limit (3 requests per minute per key', `${path}: 429 says 3`);
  }
  t.match(doc.paths['/api/lms-progress']!.get.description, 'every other API-key call (3 a minute');
  t.notMatch(JSON.stringify(doc), /\b100 (per key|requests per minute|a minute)|q=100/, 'no text still says 100');
});

/** A test configuration built from environment strings, as a deployment's is. */
function loadConfigWith(env: Record<string, string>) {
  const { RATE_LIMIT_PER_MINUTE } = loadConfig(env);
  return { RATE_LIMIT_PER_MINUTE };
}
