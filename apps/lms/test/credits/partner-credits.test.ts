import { certificates, courseAccreditations, credits, type Db, identities } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { creationHeaders, makeCourseCreator, TEST_GATEWAY_SECRET } from '../helpers/course-creation.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// GET /api/partner/credits as the gateway forwards it: partner A reads A's members and no one
// else's (B's members are not listed, B's membershipId gives an empty page), paged and stably
// ordered; a replayed token, a call that skips the gateway, a sign-in token, a session and an API
// key are refused; every bad page or limit is a 400, never a 5xx.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const partnerA = await makeCourseCreator(db, 'partner-a.example');
const partnerB = await makeCourseCreator(db, 'partner-b.example');
const courseA = await makeCourse(db, {
  teacherId: partnerA.teacherId,
  institutionId: partnerA.institutionId,
  nilaiKum: 6,
  creditScheme: 'SKP',
  name: 'Kursus A',
});

// The accreditation makeCourse records for the course's value (credit counts only under one).
const [accreditation] = await db.select().from(courseAccreditations).where(eq(courseAccreditations.courseId, courseA.id));

async function earn(d: Db, userId: string, at: string, accredited = true) {
  const [k] = await d
    .insert(certificates)
    .values({ userId, courseId: courseA.id, kum: 6, issuedAt: new Date(at) })
    .returning();
  await d.insert(credits).values({
    userId,
    courseId: courseA.id,
    certificateId: k!.id,
    scheme: 'SKP',
    amount: 6,
    earnedAt: new Date(at),
    accreditationId: accredited ? accreditation!.id : null,
  });
}

// 25 members of A (A-000 … A-024), each with one record; 3 of B; one member of both (its own id at each).
const membersA: string[] = [];
for (let i = 0; i < 25; i++) {
  const u = await makeUser(db, { name: `Anggota A ${i}` });
  await db
    .insert(identities)
    .values({ issuer: 'partner-a.example', membershipId: `A-${String(i).padStart(3, '0')}`, userId: u.id, origin: 'sso' });
  await earn(db, u.id, `2026-0${1 + (i % 9)}-10T03:00:00Z`);
  membersA.push(u.id);
}
for (let i = 0; i < 3; i++) {
  const u = await makeUser(db, { name: `Anggota B ${i}` });
  await db.insert(identities).values({ issuer: 'partner-b.example', membershipId: `B-${i}`, userId: u.id, origin: 'sso' });
  await earn(db, u.id, '2026-03-10T03:00:00Z');
}
await db.insert(identities).values({ issuer: 'partner-b.example', membershipId: 'B-shared', userId: membersA[0]!, origin: 'sso' });

const read = (query: string, token = partnerA.token(), extra: Record<string, string> = {}) => {
  const { 'content-type': _, ...headers } = creationHeaders(token);
  return app.inject({ url: `/api/partner/credits${query}`, headers: { ...headers, ...extra } });
};

t.test("partner A pages through A's members only, stably ordered", async (t) => {
  const seen: string[] = [];
  for (let page = 1; page <= 3; page++) {
    const res = await read(`?page=${page}&limit=10`);
    t.equal(res.statusCode, 200, res.body);
    const body = res.json();
    t.same(body.pagination, { page, limit: 10, total: 25, totalPages: 3 });
    seen.push(...body.members.map((m: { membershipId: string }) => m.membershipId));
    t.notMatch(res.body, /Anggota B|B-\d|B-shared/, "nothing of B's");
  }
  t.same(
    seen,
    Array.from({ length: 25 }, (_, i) => `A-${String(i).padStart(3, '0')}`),
    'every member once, in order',
  );
  const one = (await read('?membershipId=A-000')).json();
  t.equal(one.members.length, 1);
  t.match(one.members[0], {
    membershipId: 'A-000',
    name: 'Anggota A 0',
    records: [{ courseName: 'Kursus A', scheme: 'SKP', amount: 6, voided: false }],
    yearTotals: [{ scheme: 'SKP', year: 2026, amount: 6 }],
  });
  t.notMatch(JSON.stringify(one), /@example|email/i, 'no e-mail');
  const beyond = (await read('?page=100000&limit=100')).json();
  t.same(beyond.members, []);
  t.equal(beyond.pagination.total, 25);
});

t.test("partner A asking for B's members: nothing", async (t) => {
  for (const id of ['B-0', 'B-shared']) {
    const res = await read(`?membershipId=${id}`);
    t.equal(res.statusCode, 200);
    t.same(res.json().members, [], `${id} is not A's`);
    t.equal(res.json().pagination.total, 0);
  }
  const asB = (await read('', partnerB.token())).json();
  t.same(
    asB.members.map((m: { membershipId: string }) => m.membershipId),
    ['B-0', 'B-1', 'B-2', 'B-shared'],
    "B sees its own, the shared member under B's id",
  );
});

t.test('bad paging is a 400, never a 5xx', async (t) => {
  for (const q of [
    '?limit=0',
    '?limit=1000',
    '?limit=-1',
    '?limit=x',
    '?page=0',
    '?page=-1',
    '?page=99999999999',
    '?page=1e3',
    `?membershipId=${'x'.repeat(300)}`,
  ]) {
    const res = await read(q);
    t.equal(res.statusCode, 400, q);
    t.equal(res.json().success, false);
  }
});

t.test('who may not read', async (t) => {
  // A replayed token: the first use answers, the second is a 401.
  const once = partnerA.token();
  t.equal((await read('?limit=1', once)).statusCode, 200);
  const replay = await read('?limit=1', once);
  t.equal(replay.statusCode, 401);
  t.equal(replay.json().error, 'Token has already been used.');
  // Skipping the gateway: no credential, a forged one.
  const direct = await app.inject({ url: '/api/partner/credits', headers: { authorization: `Bearer ${partnerA.token()}` } });
  t.equal(direct.statusCode, 403);
  t.match(direct.json().error, /only through the gateway/);
  const forged = await read('', partnerA.token(), { 'x-gateway-secret': 'guessed-secret-0123456789' });
  t.equal(forged.statusCode, 403);
  // No token, a sign-in token, a token of an unknown issuer.
  t.equal((await app.inject({ url: '/api/partner/credits', headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET } })).statusCode, 401);
  const sso = partnerA.token(undefined, { email: 'm@example.test', membershipId: 'A-000' });
  t.equal((await read('', sso)).statusCode, 401, 'a sign-in token is not a partner read token');
  // A member's session, an API key: not a partner (refused as a call that skips the gateway).
  const member = await sessionCookieFor(app, membersA[0]!);
  t.equal((await app.inject({ url: '/api/partner/credits', headers: { cookie: member } })).statusCode, 403);
  const teacherKey = await apiKeyFor(db, partnerA.teacherId);
  t.equal((await app.inject({ url: '/api/partner/credits', headers: { 'x-api-key': teacherKey } })).statusCode, 403);
});

t.test('only accredited credit is counted', async (t) => {
  // A record without an accreditation (earned before accreditations, or its accreditation deleted).
  const u = await makeUser(db, { name: 'Anggota A tanpa SK' });
  await db.insert(identities).values({ issuer: 'partner-a.example', membershipId: 'A-999', userId: u.id, origin: 'sso' });
  await earn(db, u.id, '2026-04-10T03:00:00Z', false);
  const res = await read('?membershipId=A-999');
  t.equal(res.statusCode, 200, res.body);
  const [m] = res.json().members;
  t.match(m.records, [{ amount: 6, accreditation: null, counted: false, voided: false }], 'listed, not counted');
  t.same(m.yearTotals, [], 'and not in the totals');
  const counted = (await read('?membershipId=A-000')).json().members[0];
  t.match(counted.records, [{ accreditation: { scheme: 'SKP', reference: 'SK-TEST-001' }, counted: true }]);
});

t.test('the OpenAPI document lists it', async (t) => {
  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/partner/credits']?.get;
  t.ok(op);
  t.same(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '503']);
  t.same(op.security, [{ partnerBearer: [] }]);
  t.ok(doc.paths['/api/learning/credits']?.get);
});
