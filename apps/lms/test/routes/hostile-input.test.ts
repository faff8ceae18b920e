import { randomUUID } from 'node:crypto';
import { courses, partnerInstitutions } from '@lms/db';
import { count } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { makePartnerKey, registerPartner, signRaw } from '../helpers/sso.js';

// Hostile input through HTTP: every value the database or a recursive walk would choke on is a
// 400 naming the field, never a 5xx. (Through the gateway: e2e/test/course-creation.test.ts.)

const GATEWAY_SECRET = 'hostile-input-gateway-secret';
const ISSUER = 'partner.hostile.example';
const AJAX = { 'x-requested-with': 'XMLHttpRequest' };

/** `{"<field>": [[[ ... ]]]}` nested `depth` levels below the field. */
function deepBody(base: Record<string, unknown>, field: string, depth: number): string {
  const rest = JSON.stringify(base).slice(1, -1);
  return `{${rest ? `${rest},` : ''}${JSON.stringify(field)}:${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

t.test('hostile input is a 400 naming the field', async (t) => {
  const { app, db } = await buildTestApp(t, { config: { GATEWAY_SECRET } });
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const key = await makePartnerKey('hostile-key');
  const partnerId = await registerPartner(db.db, { issuer: ISSUER, pemKeys: [key] });
  await db.db.insert(partnerInstitutions).values({ partnerId, institutionId });
  const apiKey = await apiKeyFor(db.db, teacher.id);
  const cookie = await sessionCookieFor(app, teacher.id);

  const bearer = () => {
    const now = Math.floor(Date.now() / 1000);
    return signRaw(
      { alg: 'RS256', typ: 'JWT', kid: key.kid },
      { iss: ISSUER, aud: 'terang.ai', sub: 'member', iat: now, exp: now + 300, jti: randomUUID() },
      key,
    );
  };
  const create = (payload: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/courses',
      headers: { 'content-type': 'application/json', 'x-gateway-secret': GATEWAY_SECRET, authorization: `Bearer ${bearer()}`, ...headers },
      payload,
    });
  const valid = () => ({ institutionId, teacherId: teacher.id, name: 'Etika Profesi' });
  const courseCount = async () => (await db.db.select({ n: count() }).from(courses))[0]!.n;

  t.test('a valid body still creates a course (the fixture works)', async (t) => {
    const res = await create(JSON.stringify({ ...valid(), startDate: '1000-01-01T00:00:00Z', endDate: '9999-12-31T23:59:59Z' }));
    t.equal(res.statusCode, 201, res.body);
    t.equal(res.json().course.startDate, '1000-01-01T00:00:00.000Z', 'year 1000 is stored and read back');
    t.equal(res.json().course.endDate, '9999-12-31T23:59:59.000Z', 'so is year 9999');
  });

  t.test('a NUL in any string field of the course body', async (t) => {
    const before = await courseCount();
    const fields: Record<string, string> = {
      name: 'Etika\u0000Profesi',
      teacherId: `${teacher.id}\u0000`,
      courseCode: 'EP\u000001',
      coverPicture: 'https://cdn.example/\u0000.png',
      description: 'a\u0000b',
      instructor: '\u0000',
      currency: 'ID\u0000',
      price: '1\u00000',
    };
    for (const [field, value] of Object.entries(fields)) {
      const res = await create(JSON.stringify({ ...valid(), [field]: value }));
      t.equal(res.statusCode, 400, `${field}: ${res.body}`);
      t.match(res.json(), { success: false, error: new RegExp(`^Invalid request body: ${field}: `), details: [{ path: field }] }, field);
    }
    t.equal(await courseCount(), before, 'nothing created');
  });

  t.test('an unpaired surrogate in a string field (found by the fuzz test)', async (t) => {
    const before = await courseCount();
    // JSON.stringify writes a lone surrogate as the escape `\ude00`: valid JSON, invalid Unicode.
    for (const [field, value] of [
      ['name', 'Z\ude00a'],
      ['description', '\ud800'],
      ['instructor', 'a\udbff'],
    ] as const) {
      const res = await create(JSON.stringify({ ...valid(), [field]: value }));
      t.equal(res.statusCode, 400, `${field}: ${res.body}`);
      t.match(res.json(), { error: new RegExp(`^Invalid request body: ${field}: must be valid Unicode text`), details: [{ path: field }] });
    }
    t.equal(await courseCount(), before, 'nothing created');
    const paired = await create(JSON.stringify({ ...valid(), name: 'Kursus 😀 中文' }));
    t.equal(paired.statusCode, 201, 'a surrogate pair (an emoji) is fine');
    t.equal(paired.json().course.name, 'Kursus 😀 中文');
  });

  t.test('an institutionId past int4', async (t) => {
    for (const institution of [2147483648, 1e15, 2 ** 53 + 2]) {
      const res = await create(JSON.stringify({ ...valid(), institutionId: institution }));
      t.equal(res.statusCode, 400, `${institution}: ${res.body}`);
      t.match(res.json(), { error: /^Invalid request body: institutionId: /, details: [{ path: 'institutionId' }] });
    }
  });

  t.test('date-times outside the years 1000-9999', async (t) => {
    const cases: Array<[string, string]> = [
      ['startDate', '0000-01-01T00:00:00Z'], // no such year in PostgreSQL
      ['startDate', '0001-01-01T00:00:00Z'], // would be read back as 2001-01-01
      ['startDate', '1000-01-01T00:00:00+01:00'], // 0999-12-31T23:00Z once in UTC
      ['endDate', '9999-12-31T23:59:59-01:00'], // year 10000 once in UTC
    ];
    for (const [field, value] of cases) {
      const res = await create(JSON.stringify({ ...valid(), [field]: value }));
      t.equal(res.statusCode, 400, `${field}=${value}: ${res.body}`);
      t.match(res.json(), {
        error: new RegExp(`^Invalid request body: ${field}: must lie between the years 1000 and 9999`),
        details: [{ path: field }],
      });
    }
  });

  t.test('JSON nested 10,000 deep', async (t) => {
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Record<string, string>[]) {
      const res = await create(deepBody(valid(), 'description', 10_000), headers);
      t.equal(res.statusCode, 400, res.body);
      t.same(res.json(), { success: false, error: 'Invalid request body: description: JSON nested deeper than 32 levels' });
    }
    const bare = await create(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    t.equal(bare.statusCode, 400);
    t.same(
      bare.json(),
      { success: false, error: 'Invalid request body: 0: JSON nested deeper than 32 levels' },
      'a top-level array names its index',
    );
    const keyName = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { cookie, 'content-type': 'application/json', ...AJAX },
      payload: deepBody({}, 'name', 10_000),
    });
    t.equal(keyName.statusCode, 400);
    t.same(keyName.json(), { success: false, error: 'Invalid request body: name: JSON nested deeper than 32 levels' });
    // 32 levels are still parsed (and then judged by the schema).
    const atLimit = await create(deepBody(valid(), 'description', 31));
    t.equal(atLimit.statusCode, 400);
    t.match(atLimit.json(), { details: [{ path: 'description', message: /expected string/ }] });
  });

  t.test('a NUL in the API key name', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { cookie, ...AJAX },
      payload: { name: 'Integrasi\u0000' },
    });
    t.equal(res.statusCode, 400, res.body);
    t.match(res.json(), { success: false, error: /^Invalid request body: name: must not contain the NUL character/ });
  });

  t.test('query parameters', async (t) => {
    const cases: Array<[string, string]> = [
      ['/api/courses?search=a%00b', "Invalid query parameter 'search'"],
      ['/api/courses?categoryId=2147483648', "Invalid query parameter 'categoryId'"],
      ['/api/courses?courseId=1000000000000000', "Invalid query parameter 'courseId'"],
      ['/api/courses?page=1000001&limit=50', "Invalid query parameter 'page'"],
      ['/api/courses?limit=2147483648', "Invalid query parameter 'limit'"],
      ['/api/recommended-courses?categoryId=1000000000000000', "Invalid query parameter 'categoryId'"],
      ['/sign-in?error=invalid_token&reason=a%00b', "Invalid query parameter 'reason'"],
      ['/sign-in?error=%00', "Invalid query parameter 'error'"],
    ];
    for (const [url, error] of cases) {
      const res = await app.inject({ url, headers: { 'x-api-key': apiKey } });
      t.equal(res.statusCode, 400, `${url}: ${res.body}`);
      t.match(res.json(), { success: false, error: error }, url);
    }
    // The largest page is answered (empty), its offset computed without overflow.
    const last = await app.inject({ url: '/api/courses?page=1000000&limit=50', headers: { 'x-api-key': apiKey } });
    t.equal(last.statusCode, 200);
    t.same(last.json().courses, []);
    const huge = await app.inject({ url: `/api/courses/${'9'.repeat(100)}`, headers: { 'x-api-key': apiKey } });
    t.equal(huge.statusCode, 404, 'an id past int4 is a course that cannot exist');
  });

  t.test('every JSON answer says nosniff', async (t) => {
    for (const res of [
      await app.inject({ url: '/api/courses', headers: { 'x-api-key': apiKey } }),
      await app.inject({ url: '/api/courses?page=0', headers: { 'x-api-key': apiKey } }),
      await app.inject({ url: '/api/courses' }),
      await app.inject({ url: '/nowhere' }),
      await app.inject({ url: '/healthz' }),
    ]) {
      t.match(res.headers['content-type'], /^application\/json/);
      t.equal(res.headers['x-content-type-options'], 'nosniff', `${res.statusCode} ${res.body.slice(0, 60)}`);
    }
  });
});
