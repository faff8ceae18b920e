import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { generateSessionToken, partnerInstitutions, sessions, users } from '@lms/db';
// @ts-expect-error -- the example partner backend is plain JavaScript, written to be copied.
import { listTeachers, publishCourseFromDocument } from '@lms/example-partner-backend/src/course-sync.js';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { makeTeacher, registerPemPartner, startDemoPartner, startGateway, startLms } from './helpers/services.js';

// A partner learns the institutionId and teacherId course creation needs through a real gateway
// and a real LMS, without an operator: the gateway checks the issuer and the caller IP and
// forwards, the LMS verifies the token, spends its jti and answers with that partner's
// institutions only. Then the demo partner's own code lists its teachers and publishes a course
// for one of them.

const PARTNER_IP = '203.0.113.7';

t.test('GET /api/partner/teachers through the gateway: own institutions only', async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const home = await makeTeacher(db);
  const other = await makeTeacher(db);
  const a = await registerPemPartner(db, 'asosiasi-a.example', [home.institutionId]);
  const b = await registerPemPartner(db, 'asosiasi-b.example', [other.institutionId]);
  const gateway = await startGateway(t, [
    { iss: a.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
    { iss: b.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
  ]);
  const get = async (query: string, token: string | null, ip = PARTNER_IP) =>
    gateway.inject({
      url: `/api/partner/teachers${query}`,
      remoteAddress: ip,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });

  const ok = await get('', await a.sign());
  t.equal(ok.statusCode, 200, ok.body);
  const body = ok.json();
  t.same(
    body.institutions.map((i: { id: number }) => i.id),
    [home.institutionId],
  );
  t.same(
    body.teachers.map((x: { id: string }) => x.id),
    [home.teacherId],
  );
  t.notOk(ok.body.includes(other.teacherId), "nothing of B's institution");
  const crossed = await get(`?institutionId=${other.institutionId}`, await a.sign());
  t.equal(crossed.statusCode, 200);
  t.same(crossed.json().teachers, [], "A asking for B's institution: nothing");
  t.same(
    (await get('', await b.sign())).json().teachers.map((x: { id: string }) => x.id),
    [other.teacherId],
  );

  const once = await a.sign();
  t.equal((await get('', once)).statusCode, 200);
  const replay = await get('', once);
  t.equal(replay.statusCode, 401, 'a replayed jti');
  t.equal(replay.json().error, 'Token has already been used.');
  t.equal((await get('', null)).statusCode, 401, 'no token');
  t.equal((await get('', await a.sign({ email: 'm@example.test', membershipId: 'M-1' }))).statusCode, 401, 'a sign-in token');
  t.equal((await get('', await a.sign(), '192.0.2.9')).statusCode, 403, 'caller IP not allowed');
  t.equal((await get('?limit=1000', await a.sign())).statusCode, 400);

  // The LMS itself, without the gateway: a partner token, a teacher's session.
  const direct = await fetch(`${lms.url}/api/partner/teachers`, { headers: { authorization: `Bearer ${await a.sign()}` } });
  t.equal(direct.status, 403);
  const { token, tokenHash } = generateSessionToken();
  await db.insert(sessions).values({ tokenHash, userId: home.teacherId, expiresAt: new Date(Date.now() + 3_600_000) });
  const bySession = await fetch(`${lms.url}/api/partner/teachers`, { headers: { cookie: `${lms.app.sessionCookieName}=${token}` } });
  t.equal(bySession.status, 403, 'a session is not a partner');
});

t.test("the demo partner's code finds its teacher and publishes a course for them", async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  await makeTeacher(db); // another institution, bound to nobody
  const partner = await startDemoPartner(t, lms.url, db);
  await db.insert(partnerInstitutions).values({ partnerId: partner.partnerId, institutionId });
  const [teacher] = await db.select().from(users).where(eq(users.id, teacherId));

  const found = await listTeachers({ key: partner.key, issuer: partner.iss, gatewayUrl: partner.gatewayUrl });
  t.same(found.institutions, [{ id: institutionId, name: 'E2E Institute' }]);
  t.same(found.teachers, [{ id: teacherId, name: 'E2E Teacher', email: teacher!.email, institutionId }]);

  const documentFile = createRequire(import.meta.url).resolve('@lms/example-partner-backend/course.example.json');
  const document = JSON.parse(await readFile(documentFile, 'utf8'));
  const published = await publishCourseFromDocument({
    key: partner.key,
    issuer: partner.iss,
    gatewayUrl: partner.gatewayUrl,
    institutionId: found.institutions[0].id,
    teacherId: found.teachers[0].id,
    document,
    log: { info() {} },
  });
  t.equal(published.isPublished, true, 'published with the ids the partner read itself');
});
