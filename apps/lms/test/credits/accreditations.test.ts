import { certificates, chapterCompletions, chapters, courseAccreditations, courses, credits, enrollments } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { issueCertificateIfEarned } from '../../src/domain/learning/certificates.js';
import { buildTestApp } from '../helpers/app.js';
import { bySession, byPartner } from '../helpers/authoring.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { makeCourseCreator } from '../helpers/course-creation.js';
import { apiKeyFor, makeInstitution, makeUser } from '../helpers/fixtures.js';
import { recordedReceipts } from '../helpers/notifications.js';

// Credit only from accreditations (issue 42): a teacher cannot give a course credit (the finding:
// one chapter worth 999,999.99 SKP), another institution's admin and another partner cannot
// either; an admin's value is bounded by the scheme (its maximum, its units of the course's
// expected minutes); a certificate earns credit only from an accreditation in force at issue.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const partner = await makeCourseCreator(db, 'partner-accr.example');
const other = await makeCourseCreator(db, 'partner-other.example');
const institutionId = partner.institutionId;
const teacherId = partner.teacherId;
const admin = await makeUser(db, { role: 'admin', institutionId });
const otherInstitution = await makeInstitution(db);
const otherAdmin = await makeUser(db, { role: 'admin', institutionId: otherInstitution });
const superAdmin = await makeUser(db, { role: 'super_admin' });
const course = await makeCourse(db, { teacherId, institutionId, name: 'Satu Bab' }, { chapters: [1] });
const url = `/api/courses/${course.id}/accreditations`;
const body = { scheme: 'SKP', reference: 'SK-001/2026', validFrom: '2026-01-01', value: 10 };

t.test('who may record an accreditation', async (t) => {
  const teacher = await bySession(app, teacherId);
  const refused = await teacher('POST', url, { ...body, value: 999999.99 });
  t.equal(refused.status, 403, JSON.stringify(refused.body));
  t.match(refused.body.error, /admin of the course's institution or a super_admin/, 'says who records accreditations');
  t.equal((await teacher('GET', url)).status, 200, 'the owner teacher reads them');

  const kum = await teacher('PATCH', `/api/courses/${course.id}`, { nilaiKum: 999999.99 });
  t.equal(kum.status, 403, 'a teacher writing nilaiKum is refused (the finding)');
  t.match(kum.body.error, /accreditations/);
  const [row] = await db.select().from(courses).where(eq(courses.id, course.id));
  t.equal(row!.nilaiKum, null);

  const foreign = await bySession(app, otherAdmin.id);
  t.equal((await foreign('POST', url, body)).status, 403, "another institution's admin");
  t.equal((await foreign('GET', url)).status, 403, "another institution's admin reads nothing");
  t.equal((await byPartner(app, other)('POST', url, body)).status, 403, 'another partner');
  t.equal((await byPartner(app, other)('GET', url)).status, 403, 'another partner reads nothing');
  t.equal((await byPartner(app, partner)('POST', url, body)).status, 403, "the course's own partner does not accredit");
  const key = await apiKeyFor(db, admin.id);
  const byKey = await app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload: body });
  t.equal(byKey.statusCode, 403, 'an API key');
  const crafted = await bySession(app, admin.id);
  for (const [label, b] of [
    ['unknown field', { ...body, recordedBy: 'x' }],
    ['reference too long', { ...body, reference: 'x'.repeat(201) }],
    ['too many professions', { ...body, professions: Array.from({ length: 21 }, (_, i) => `p${i}`) }],
    ['value a string', { ...body, value: '10' }],
  ] as const) {
    t.equal((await crafted('POST', url, b)).status, 400, label);
  }
  t.equal(await db.$count(courseAccreditations, eq(courseAccreditations.courseId, course.id)), 0, 'nothing recorded');
});

t.test('an admin records it, bounded by the scheme', async (t) => {
  const as = await bySession(app, admin.id);
  const over = await as('POST', url, { ...body, value: 50.01 });
  t.equal(over.status, 422);
  t.match(over.body.error, /50 SKP/, 'names the bound');
  const unknown = await as('POST', url, { ...body, scheme: 'NOPE' });
  t.equal(unknown.status, 422);
  t.match(unknown.body.error, /Unknown credit scheme NOPE/);
  const period = await as('POST', url, { ...body, validUntil: '2025-12-31' });
  t.equal(period.status, 422);
  t.match(period.body.error, /validUntil must be after validFrom/);
  t.equal((await as('POST', url, { ...body, validFrom: '1 Jan 2026' })).status, 422, 'not an ISO date');

  // 130 expected minutes at 45 a JPL, rounding down: 2 JPL at most.
  await db.update(chapters).set({ expectedMinutes: 130 }).where(eq(chapters.courseId, course.id));
  const jpl = await as('POST', url, { ...body, scheme: 'SKP-KEMENKES', value: 3 });
  t.equal(jpl.status, 422);
  t.match(jpl.body.error, /over 2 JPL.*45 minutes.*130 minutes/);
  t.equal((await as('POST', url, { ...body, scheme: 'SKP-KEMENKES', value: 2 })).status, 201);

  const made = await as('POST', url, { ...body, validUntil: '2027-01-01', professions: ['Akuntan'] });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.match(made.body.accreditation, { scheme: 'SKP', reference: 'SK-001/2026', value: 10, recordedBy: admin.id });
  t.equal((await as('POST', url, body)).status, 409, 'the same reference twice');
  const [row] = await db.select().from(courses).where(eq(courses.id, course.id));
  t.match(row, { nilaiKum: 10, creditScheme: 'SKP' }, 'the catalog shows the largest in force');

  const sup = await bySession(app, superAdmin.id);
  const changed = await sup('PATCH', `${url}/${made.body.accreditation.id}`, { value: 12 });
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.equal((await sup('PATCH', `${url}/${made.body.accreditation.id}`, { value: 1000 })).status, 422);
  const teacher = await bySession(app, teacherId);
  t.equal((await teacher('PATCH', `${url}/${made.body.accreditation.id}`, { value: 50 })).status, 403);
  t.equal((await teacher('DELETE', `${url}/${made.body.accreditation.id}`)).status, 403);
  // An unchanged nilaiKum in a round trip passes; an admin's change is pointed at accreditations.
  t.equal((await teacher('PATCH', `/api/courses/${course.id}`, { nilaiKum: 12, name: 'Satu Bab' })).status, 200);
  const adminKum = await as('PATCH', `/api/courses/${course.id}`, { nilaiKum: 20 });
  t.equal(adminKum.status, 409);
  t.match(adminKum.body.error, /record or change an accreditation/);
  const list = await teacher('GET', url);
  t.equal(list.body.accreditations.length, 2);
});

t.test('credit only from an accreditation in force at issue', async (t) => {
  const c = await makeCourse(db, { teacherId, institutionId, name: 'Berjangka', creditScheme: 'SKP' }, { chapters: [1] });
  const as = await bySession(app, admin.id);
  const made = await as('POST', `/api/courses/${c.id}/accreditations`, {
    scheme: 'SKP',
    reference: 'SK-2026',
    validFrom: '2026-03-01',
    validUntil: '2026-09-01',
    value: 4,
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const earnAt = async (at: string) => {
    const learner = await makeUser(db, { role: 'student' });
    await db.insert(enrollments).values({ userId: learner.id, courseId: c.id });
    await db.insert(chapterCompletions).values({ userId: learner.id, chapterId: c.chapters[0]!.id, courseId: c.id });
    const code = await issueCertificateIfEarned(db, recordedReceipts, learner.id, c.id, new Date(at));
    t.ok(code, `a certificate at ${at}`);
    const [k] = await db.select().from(certificates).where(eq(certificates.code, code!));
    return { kum: k!.kum, credits: await db.select().from(credits).where(eq(credits.certificateId, k!.id)) };
  };
  const before = await earnAt('2026-02-28T23:59:00Z');
  t.same(before.credits, [], 'before validFrom: no credit');
  t.equal(before.kum, null);
  const inside = await earnAt('2026-05-01T00:00:00Z');
  t.match(inside.credits, [{ scheme: 'SKP', amount: 4, accreditationId: made.body.accreditation.id }], 'inside: credit');
  t.equal(inside.kum, 4);
  const after = await earnAt('2026-09-01T00:00:00Z');
  t.same(after.credits, [], 'from validUntil: no credit');
  // A teacher-only course (no accreditation): a certificate, no credit.
  const bare = await makeCourse(db, { teacherId, institutionId, name: 'Tanpa SK' }, { chapters: [1] });
  await db.update(courses).set({ nilaiKum: 999 }).where(eq(courses.id, bare.id));
  const learner = await makeUser(db, { role: 'student' });
  await db.insert(enrollments).values({ userId: learner.id, courseId: bare.id });
  await db.insert(chapterCompletions).values({ userId: learner.id, chapterId: bare.chapters[0]!.id, courseId: bare.id });
  t.ok(await issueCertificateIfEarned(db, recordedReceipts, learner.id, bare.id, new Date('2026-05-01T00:00:00Z')));
  t.equal(await db.$count(credits, eq(credits.courseId, bare.id)), 0, 'a value without an accreditation earns nothing');
  const del = await as('DELETE', `/api/courses/${c.id}/accreditations/${made.body.accreditation.id}`);
  t.equal(del.status, 409, 'credit was earned under it: ended, not deleted');
});
