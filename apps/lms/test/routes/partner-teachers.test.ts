import { partnerInstitutions, partners } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { creationHeaders, makeCourseCreator, TEST_GATEWAY_SECRET } from '../helpers/course-creation.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// GET /api/partner/teachers as the gateway forwards it: a partner learns the institutionId and
// teacherId course creation needs without asking an operator. An attacker's view: partner A never
// sees partner B's institutions or teachers (nor an unbound institution's, nor students, admins or
// inactive teachers); a replayed jti, a call that skips the gateway, a sign-in token, a session and
// an API key are refused; bad paging is a 400. And what it lists is exactly what course creation
// accepts: every teacher listed makes a course, from this partner.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const partnerA = await makeCourseCreator(db, 'partner-a.example');
const partnerB = await makeCourseCreator(db, 'partner-b.example');
const [rowA] = await db.select({ id: partners.id }).from(partners).where(eq(partners.issuer, partnerA.issuer));
// A is bound to a second institution too; a third is bound to nobody.
const secondA = await makeInstitution(db, 'Second of A');
await db.insert(partnerInstitutions).values({ partnerId: rowA!.id, institutionId: secondA });
const unbound = await makeInstitution(db, 'Unbound');

const homeA = partnerA.institutionId;
const activeA = [
  await makeUser(db, { role: 'teacher', institutionId: homeA, name: 'Ani Guru', email: 'ani@a.example' }),
  await makeUser(db, { role: 'teacher', institutionId: secondA, name: 'Bayu Guru', email: 'bayu@a.example' }),
];
const notListed = [
  await makeUser(db, { role: 'teacher', institutionId: homeA, name: 'Guru Nonaktif', isActive: false }),
  await makeUser(db, { role: 'student', institutionId: homeA, name: 'Murid A' }),
  await makeUser(db, { role: 'admin', institutionId: homeA, name: 'Admin A' }),
  await makeUser(db, { role: 'teacher', institutionId: unbound, name: 'Guru Lepas' }),
  await makeUser(db, { role: 'teacher', institutionId: partnerB.institutionId, name: 'Guru B' }),
];

const read = (query: string, token = partnerA.token(), extra: Record<string, string> = {}) => {
  const { 'content-type': _, ...headers } = creationHeaders(token);
  return app.inject({ url: `/api/partner/teachers${query}`, headers: { ...headers, ...extra } });
};

t.test("partner A reads its institutions and their active teachers, and no one else's", async (t) => {
  const res = await read('');
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.same(body.institutions, [
    { id: homeA, name: `Institution of ${partnerA.issuer}` },
    { id: secondA, name: 'Second of A' },
  ]);
  const ids = body.teachers.map((x: { id: string }) => x.id).sort();
  t.same(ids, [partnerA.teacherId, ...activeA.map((u) => u.id)].sort(), 'the active teachers of both, only they');
  t.match(
    body.teachers.find((x: { id: string }) => x.id === activeA[0]!.id),
    { name: 'Ani Guru', email: 'ani@a.example', institutionId: homeA },
  );
  for (const u of notListed) t.notOk(res.body.includes(u.id), `${u.name} is not listed`);
  t.notMatch(res.body, /partner-b|Unbound|Guru B|Guru Lepas/, "nothing of B's or an unbound institution");
  t.same(body.pagination, { page: 1, limit: 50, total: 3, totalPages: 1 });

  const asB = (await read('', partnerB.token())).json();
  t.same(
    asB.institutions.map((i: { id: number }) => i.id),
    [partnerB.institutionId],
  );
  t.same(asB.teachers.map((x: { id: string }) => x.id).sort(), [partnerB.teacherId, notListed[4]!.id].sort());
});

t.test("A asking for B's institution, or an unbound one, gets nothing", async (t) => {
  for (const id of [partnerB.institutionId, unbound, 2_147_483_647]) {
    const res = await read(`?institutionId=${id}`);
    t.equal(res.statusCode, 200);
    t.same(res.json(), { success: true, institutions: [], teachers: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } });
  }
  const one = (await read(`?institutionId=${secondA}`)).json();
  t.same(one.institutions, [{ id: secondA, name: 'Second of A' }]);
  t.same(
    one.teachers.map((x: { id: string }) => x.id),
    [activeA[1]!.id],
  );
});

t.test('pages are stable and cover every teacher once', async (t) => {
  const seen: string[] = [];
  for (let page = 1; page <= 3; page++) {
    const body = (await read(`?page=${page}&limit=1`)).json();
    t.same(body.pagination, { page, limit: 1, total: 3, totalPages: 3 });
    seen.push(...body.teachers.map((x: { id: string }) => x.id));
  }
  t.same(seen.sort(), [partnerA.teacherId, ...activeA.map((u) => u.id)].sort());
  t.same((await read('?page=4&limit=1')).json().teachers, []);
});

t.test('every teacher listed is one course creation accepts from this partner', async (t) => {
  const body = (await read('')).json();
  for (const teacher of body.teachers as { id: string; institutionId: number }[]) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/courses',
      headers: creationHeaders(partnerA.token()),
      payload: { institutionId: teacher.institutionId, teacherId: teacher.id, name: `Kursus ${teacher.id}` },
    });
    t.equal(res.statusCode, 201, res.body);
  }
  // And what is not listed is refused there too.
  const foreign = await app.inject({
    method: 'POST',
    url: '/api/courses',
    headers: creationHeaders(partnerA.token()),
    payload: { institutionId: homeA, teacherId: notListed[0]!.id, name: 'Nonaktif' },
  });
  t.equal(foreign.statusCode, 403);
});

t.test('an unbound institution disappears at once', async (t) => {
  await db.delete(partnerInstitutions).where(eq(partnerInstitutions.institutionId, secondA));
  const body = (await read('')).json();
  t.same(
    body.institutions.map((i: { id: number }) => i.id),
    [homeA],
  );
  t.notOk(JSON.stringify(body).includes(activeA[1]!.id));
  await db.insert(partnerInstitutions).values({ partnerId: rowA!.id, institutionId: secondA });
});

t.test('bad paging is a 400, never a 5xx', async (t) => {
  for (const q of [
    '?limit=0',
    '?limit=101',
    '?limit=-1',
    '?limit=x',
    '?page=0',
    '?page=99999999999',
    '?page=1e3',
    '?institutionId=0',
    '?institutionId=abc',
    '?institutionId=2147483648',
  ]) {
    const res = await read(q);
    t.equal(res.statusCode, 400, q);
    t.equal(res.json().success, false);
  }
});

t.test('who may not read', async (t) => {
  const once = partnerA.token();
  t.equal((await read('', once)).statusCode, 200);
  const replay = await read('', once);
  t.equal(replay.statusCode, 401, 'a replayed jti');
  t.equal(replay.json().error, 'Token has already been used.');
  const direct = await app.inject({ url: '/api/partner/teachers', headers: { authorization: `Bearer ${partnerA.token()}` } });
  t.equal(direct.statusCode, 403, 'skipping the gateway');
  t.match(direct.json().error, /only through the gateway/);
  t.equal(
    (await read('', partnerA.token(), { 'x-gateway-secret': 'guessed-secret-0123456789' })).statusCode,
    403,
    'a forged gateway credential',
  );
  t.equal(
    (await app.inject({ url: '/api/partner/teachers', headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET } })).statusCode,
    401,
    'no token',
  );
  const sso = partnerA.token(undefined, { email: 'm@example.test', membershipId: 'A-1' });
  t.equal((await read('', sso)).statusCode, 401, 'a sign-in token');
  // A teacher's own session and API key: people and integrations, not a partner.
  const cookie = await sessionCookieFor(app, partnerA.teacherId);
  const bySession = await app.inject({ url: '/api/partner/teachers', headers: { cookie } });
  t.equal(bySession.statusCode, 403, 'a session');
  t.notMatch(bySession.body, /ani@a\.example/);
  const key = await apiKeyFor(db, partnerA.teacherId);
  const byKey = await app.inject({ url: '/api/partner/teachers', headers: { 'x-api-key': key } });
  t.equal(byKey.statusCode, 403, 'an API key');
  t.notMatch(byKey.body, /ani@a\.example/);
});

t.test('the OpenAPI document lists it', async (t) => {
  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/partner/teachers']?.get;
  t.ok(op);
  t.same(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '503']);
  t.same(op.security, [{ partnerBearer: [] }]);
  t.same(op.tags, ['partners']);
  t.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'institutionId' && p.in === 'query'));
});
