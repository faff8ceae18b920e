import {
  certificates,
  chapters,
  chapterTime,
  courseAccreditations,
  credits,
  enrollments,
  evaluationCompletions,
  identities,
  modules,
  users,
} from '@lms/db';
import { makeCourse } from '@lms/db/testing';
import t from 'tap';
import { makeTeacher, registerPemPartner, startGateway, startLms } from './helpers/services.js';

// A partner reads its members' credit evidence through a real gateway and a real LMS (as the
// credit read): per course, the minutes, the evaluation, the certificate and its credit with the
// accreditation reference; partner A never reads partner B's members, even by naming one.

const PARTNER_IP = '203.0.113.7';

t.test('GET /api/partner/evidence through the gateway', async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  const a = await registerPemPartner(db, 'asosiasi-a.example');
  const b = await registerPemPartner(db, 'asosiasi-b.example');
  const gateway = await startGateway(t, [
    { iss: a.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
    { iss: b.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
  ]);
  const course = await makeCourse(db, { teacherId, institutionId, name: 'Etika Klinis', nilaiKum: 2, creditScheme: 'SKP-KEMENKES' });
  const [mod] = await db.insert(modules).values({ courseId: course.id, name: 'M1', orderIndex: 1 }).returning();
  const [chapter] = await db
    .insert(chapters)
    .values({ courseId: course.id, moduleId: mod!.id, name: 'C1', orderIndex: 1, content: 'x' })
    .returning();
  const [accreditation] = await db
    .insert(courseAccreditations)
    .values({
      courseId: course.id,
      scheme: 'SKP-KEMENKES',
      reference: 'KEMKES/2026/9',
      value: 2,
      validFrom: new Date('2026-01-01T00:00:00Z'),
    })
    .returning();
  const member = async (iss: string, membershipId: string, name: string) => {
    const [u] = await db
      .insert(users)
      .values({ email: `${membershipId}@example.test`, name, role: 'student' })
      .returning();
    await db.insert(identities).values({ issuer: iss, membershipId, userId: u!.id, origin: 'sso' });
    await db.insert(enrollments).values({ userId: u!.id, courseId: course.id });
    await db.insert(chapterTime).values({ userId: u!.id, courseId: course.id, chapterId: chapter!.id, activeSeconds: 95 * 60 });
    await db.insert(evaluationCompletions).values({ userId: u!.id, courseId: course.id });
    const [k] = await db
      .insert(certificates)
      .values({ userId: u!.id, courseId: course.id, kum: 2, issuedAt: new Date('2026-04-01T02:00:00Z') })
      .returning();
    await db.insert(credits).values({
      userId: u!.id,
      courseId: course.id,
      certificateId: k!.id,
      scheme: 'SKP-KEMENKES',
      accreditationId: accreditation!.id,
      amount: 2,
      earnedAt: k!.issuedAt,
    });
    return k!.code;
  };
  const codeA = await member(a.iss, 'A-1', 'Anggota Satu');
  await member(b.iss, 'B-1', 'Anggota Asosiasi B');

  const get = async (query: string, token: string | null, ip = PARTNER_IP) =>
    gateway.inject({
      url: `/api/partner/evidence${query}`,
      remoteAddress: ip,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });

  const ok = await get('?limit=10', await a.sign());
  t.equal(ok.statusCode, 200, ok.body);
  const body = ok.json();
  t.same(body.pagination, { page: 1, limit: 10, total: 1, totalPages: 1 });
  t.match(body.members, [
    {
      membershipId: 'A-1',
      name: 'Anggota Satu',
      courses: [
        {
          courseId: course.id,
          courseName: 'Etika Klinis',
          minutes: 95,
          attendancePercent: null,
          preTestScore: null,
          evaluationDone: true,
          certificateCode: codeA,
          certificateIssuedAt: '2026-04-01T02:00:00.000Z',
          credits: [{ scheme: 'SKP-KEMENKES', amount: 2, accreditationReference: 'KEMKES/2026/9' }],
        },
      ],
    },
  ]);
  t.notMatch(ok.body, /Asosiasi B|B-1|example\.test/, "nothing of B's members, no e-mail");

  const crossed = await get('?membershipId=B-1', await a.sign());
  t.equal(crossed.statusCode, 200);
  t.same(crossed.json().members, [], "A asking for B's member: an empty page");
  const fromB = (await get('', await b.sign())).json();
  t.same(
    fromB.members.map((m: { membershipId: string }) => m.membershipId),
    ['B-1'],
    'B reads its own only',
  );

  const once = await a.sign();
  t.equal((await get('', once)).statusCode, 200);
  t.equal((await get('', once)).statusCode, 401, 'a replayed jti');
  t.equal((await get('', null)).statusCode, 401, 'no token');
  t.equal((await get('', await a.sign(), '192.0.2.9')).statusCode, 403, 'caller IP not allowed');
  for (const q of ['?limit=0', '?limit=1000', '?page=0', '?membershipId=']) {
    t.equal((await get(q, await a.sign())).statusCode, 400, `${q} through the gateway`);
  }
  const direct = await fetch(`${lms.url}/api/partner/evidence`, { headers: { authorization: `Bearer ${await a.sign()}` } });
  t.equal(direct.status, 403, 'the LMS without the gateway');
});
