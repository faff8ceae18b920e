import { OPEN_ENDED_END_DATE } from '@lms/contracts';
import { courses } from '@lms/db';
import { count } from 'drizzle-orm';
import t from 'tap';
import { TEST_GATEWAY_SECRET } from '../../src/testing.js';
import { buildTestApp } from '../helpers/app.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { makePartnerKey, registerPartner, ssoToken } from '../helpers/sso.js';

// POST /api/courses on the LMS, as the gateway forwards it (its credential, the partner's bearer
// token): the token kinds and the partner's rights on institutions and teachers
// (docs/architecture.md, "Token purposes", "Partners and institutions").
const NOW = new Date('2026-11-22T10:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const { app, db } = await buildTestApp(t, { deps: { clock: () => NOW } });

const home = await makeInstitution(db.db, 'Universitas Mitra');
const elsewhere = await makeInstitution(db.db, 'Institut Lain');
const teacher = await makeUser(db.db, { role: 'teacher', institutionId: home });
const foreignTeacher = await makeUser(db.db, { role: 'teacher', institutionId: elsewhere });
const retired = await makeUser(db.db, { role: 'teacher', institutionId: home, isActive: false });
const student = await makeUser(db.db, { role: 'student', institutionId: home });
const key = await makePartnerKey('u-1');
await registerPartner(db.db, { issuer: 'univ.test', pemKeys: [key], institutionIds: [home] });
await registerPartner(db.db, { issuer: 'other.test', pemKeys: [key], institutionIds: [elsewhere] });

/** A course-creation token as a partner signs it: no email, no membershipId, sub = its system. */
const bearer = (issuer = 'univ.test', claims: Record<string, unknown> = {}) =>
  ssoToken(key, issuer, NOW_S, { email: undefined, membershipId: undefined, name: undefined, sub: 'course-sync', ...claims });

const post = (body: Record<string, unknown>, token: string | null = bearer(), secret: string | null = TEST_GATEWAY_SECRET) =>
  app.inject({
    method: 'POST',
    url: '/api/courses',
    headers: {
      'content-type': 'application/json',
      ...(secret === null ? {} : { 'x-gateway-secret': secret }),
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: body,
  });
const courseCount = async () => (await db.db.select({ n: count() }).from(courses))[0]!.n;
const valid = (extra: Record<string, unknown> = {}) => ({ institutionId: home, teacherId: teacher.id, name: 'Etika Profesi', ...extra });

t.test('a bound partner creates a draft for a teacher of the institution; the record has string dates and cover', async (t) => {
  const minimal = await post(valid());
  t.equal(minimal.statusCode, 201, minimal.body);
  const course = minimal.json().course;
  t.match(course, {
    institutionId: home,
    teacherId: teacher.id,
    coverPicture: '',
    startDate: course.createdAt,
    endDate: OPEN_ENDED_END_DATE,
  });
  t.type(course.startDate, 'string');

  const started = await post(valid({ startDate: '2026-12-01T09:00:00Z', coverPicture: 'https://cdn.example/c.png' }));
  t.equal(started.statusCode, 201, started.body);
  t.match(started.json().course, {
    startDate: '2026-12-01T09:00:00.000Z',
    endDate: OPEN_ENDED_END_DATE, // a start without an end: it runs on, not "ends as it starts"
    coverPicture: 'https://cdn.example/c.png',
  });

  const both = await post(valid({ startDate: '2026-12-01T09:00:00Z', endDate: '2026-12-31T09:00:00Z' }));
  t.match(both.json().course, { startDate: '2026-12-01T09:00:00.000Z', endDate: '2026-12-31T09:00:00.000Z' });
});

t.test('an institution the partner is not bound to is 403 naming it; an unknown one reads the same', async (t) => {
  const before = await courseCount();
  const unbound = await post(valid({ institutionId: elsewhere, teacherId: foreignTeacher.id }));
  t.equal(unbound.statusCode, 403);
  t.same(unbound.json(), { success: false, error: `Partner univ.test may not create courses for institution ${elsewhere}` });
  const unknown = await post(valid({ institutionId: 999_999 }));
  t.equal(unknown.statusCode, 403);
  t.same(unknown.json(), { success: false, error: 'Partner univ.test may not create courses for institution 999999' });
  // The other partner, bound to `elsewhere` only, cannot reach `home`'s teachers.
  const crossed = await post(valid(), bearer('other.test'));
  t.equal(crossed.statusCode, 403);
  t.same(crossed.json(), { success: false, error: `Partner other.test may not create courses for institution ${home}` });
  t.equal(await courseCount(), before, 'nothing created');
});

t.test('a teacher of another institution, an unknown, deactivated or non-teacher user: the same 403 naming the institution', async (t) => {
  const before = await courseCount();
  for (const [label, teacherId] of [
    ['teacher of another institution', foreignTeacher.id],
    ['unknown user', 'no-such-user'],
    ['deactivated teacher', retired.id],
    ['a student of the institution', student.id],
  ] as const) {
    const res = await post(valid({ teacherId }));
    t.equal(res.statusCode, 403, label);
    t.same(res.json(), { success: false, error: `teacherId ${teacherId} is not an active teacher of institution ${home}` }, label);
  }
  t.equal(await courseCount(), before, 'nothing created');
});

t.test('token kinds: a sign-in (SSO) token is refused as a bearer token (401 with the reason)', async (t) => {
  const reason = 'This is a sign-in (SSO) token: it carries "email" or "membershipId". Course creation needs a bearer token without them.';
  const before = await courseCount();
  for (const token of [
    ssoToken(key, 'univ.test', NOW_S), // exactly what a member's sign-in carries
    bearer('univ.test', { membershipId: 'M-1' }),
    bearer('univ.test', { email: 'someone@example.test' }),
  ]) {
    const res = await post(valid(), token);
    t.equal(res.statusCode, 401);
    t.same(res.json(), { success: false, error: reason });
  }
  t.equal(await courseCount(), before, 'nothing created');
  // A bearer token needs no tier in sub.
  t.equal((await post(valid(), bearer('univ.test', { sub: 'member' }))).statusCode, 201, 'a tier-looking sub is fine too');
});

t.test('credentials: no bearer token 401, not through the gateway 403, no GATEWAY_SECRET 503', async (t) => {
  const none = await post(valid(), null);
  t.equal(none.statusCode, 401);
  t.same(none.json(), { success: false, error: 'Authorization: Bearer <token> is required' });
  const direct = await post(valid(), bearer(), null);
  t.equal(direct.statusCode, 403);
  t.same(direct.json(), { success: false, error: 'Course creation is accepted only through the gateway' });

  const { app: bare } = await buildTestApp(t, { config: { GATEWAY_SECRET: undefined }, db });
  const refused = await bare.inject({
    method: 'POST',
    url: '/api/courses',
    headers: { 'content-type': 'application/json', 'x-gateway-secret': TEST_GATEWAY_SECRET, authorization: `Bearer ${bearer()}` },
    payload: valid(),
  });
  t.equal(refused.statusCode, 503);
  t.same(refused.json(), { success: false, error: 'Course creation is not enabled on this LMS' });
});
