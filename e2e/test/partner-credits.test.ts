import { certificates, courseAccreditations, credits, identities, users } from '@lms/db';
import { makeCourse } from '@lms/db/testing';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { makeTeacher, registerPemPartner, startGateway, startLms } from './helpers/services.js';

// A partner reads its members' credit records through a real gateway and a real LMS: the gateway
// checks the issuer and the caller IP and forwards, the LMS verifies the token, spends its jti and
// answers with that partner's members only.

const PARTNER_IP = '203.0.113.7';

t.test('GET /api/partner/credits through the gateway', async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  const a = await registerPemPartner(db, 'asosiasi-a.example');
  const b = await registerPemPartner(db, 'asosiasi-b.example');
  const gateway = await startGateway(t, [
    { iss: a.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
    { iss: b.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
  ]);
  const course = await makeCourse(db, { teacherId, institutionId, name: 'Audit', nilaiKum: 8, creditScheme: 'SKP' });
  // Credit counts under an accreditation (makeCourse records the course's value as one).
  const [accreditation] = await db.select().from(courseAccreditations).where(eq(courseAccreditations.courseId, course.id));
  const member = async (iss: string, membershipId: string, name: string) => {
    const [u] = await db
      .insert(users)
      .values({ email: `${membershipId}@example.test`, name, role: 'student' })
      .returning();
    await db.insert(identities).values({ issuer: iss, membershipId, userId: u!.id, origin: 'sso' });
    const [k] = await db
      .insert(certificates)
      .values({ userId: u!.id, courseId: course.id, kum: 8, issuedAt: new Date('2026-04-01T02:00:00Z') })
      .returning();
    await db.insert(credits).values({
      userId: u!.id,
      courseId: course.id,
      certificateId: k!.id,
      scheme: 'SKP',
      amount: 8,
      earnedAt: k!.issuedAt,
      accreditationId: accreditation!.id,
    });
  };
  await member(a.iss, 'A-1', 'Anggota Satu');
  await member(a.iss, 'A-2', 'Anggota Dua');
  await member(b.iss, 'B-1', 'Anggota Asosiasi B');

  const get = async (query: string, token: string | null, ip = PARTNER_IP) =>
    gateway.inject({
      url: `/api/partner/credits${query}`,
      remoteAddress: ip,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });

  const ok = await get('?limit=10', await a.sign());
  t.equal(ok.statusCode, 200, ok.body);
  const body = ok.json();
  t.same(
    body.members.map((m: { membershipId: string }) => m.membershipId),
    ['A-1', 'A-2'],
  );
  t.match(body.members[0], { name: 'Anggota Satu', yearTotals: [{ scheme: 'SKP', year: 2026, amount: 8 }] });
  t.notMatch(ok.body, /Asosiasi B|B-1|example\.test/, "nothing of B's members, no e-mail");
  t.same(body.pagination, { page: 1, limit: 10, total: 2, totalPages: 1 });

  const crossed = await get('?membershipId=B-1', await a.sign());
  t.equal(crossed.statusCode, 200);
  t.same(crossed.json().members, [], "A asking for B's member: an empty page");

  const once = await a.sign();
  t.equal((await get('', once)).statusCode, 200);
  const replay = await get('', once);
  t.equal(replay.statusCode, 401, 'a replayed jti');
  t.equal(replay.json().error, 'Token has already been used.');

  t.equal((await get('', null)).statusCode, 401, 'no token');
  t.equal((await get('', await a.sign(), '192.0.2.9')).statusCode, 403, 'caller IP not allowed');
  for (const q of ['?limit=0', '?limit=1000', '?limit=-1', '?limit=x', '?page=99999999999']) {
    const res = await get(q, await a.sign());
    t.equal(res.statusCode, 400, `${q} through the gateway`);
  }
  // The LMS itself, without the gateway's credential.
  const direct = await fetch(`${lms.url}/api/partner/credits`, { headers: { authorization: `Bearer ${await a.sign()}` } });
  t.equal(direct.status, 403);
  t.equal(b.iss, 'asosiasi-b.example');
});
