import { certificates, chapters, credits, enrollments, purchases } from '@lms/db';
import { and, asc, eq } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { asSession, makeBundle, makeCourse } from '../learning/enrolment-fixtures.js';
import { addEndpointRow, drain, eventsWorld, receiver } from './fixtures.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// A refund changed nothing for the learner (issue 40, finding 12): after it the member stayed
// enrolled, kept the certificate and appeared on the learners list with no mark. Now a refund ends
// access to what was bought, says so on the learners list, and revokes a certificate earned
// through it with the reason, unless the admin keeps it and says why; partners hear
// purchase.refunded and certificate.revoked once each.

const ORIGIN = 'http://localhost:3000';
const w = await eventsWorld(t);
const { cast } = w;
const hooks = await receiver(t);
await addEndpointRow(w.db.db, w.partnerA, hooks.url, ['purchase.refunded', 'certificate.revoked']);
const db = w.db.db;
const priced = { isPurchasable: true, price: '90000', priceNonMember: '90000', nilaiKum: 3, enrollmentType: 'open' as const };
const course = await makeCourse(db, cast.teacher, { ...priced, name: 'Etika Audit' }, 2);

const api = (cookie: string, method: 'GET' | 'POST', url: string, payload?: object) =>
  w.app.inject({ method, url, headers: asSession(cookie), ...(payload === undefined ? {} : { payload }) });
const page = (cookie: string, url: string, lang = 'en') => w.app.inject({ url, headers: { cookie, 'accept-language': lang } });
const form = (cookie: string, url: string, fields: Record<string, string>) =>
  w.app.inject({
    method: 'POST',
    url,
    headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const chapterIds = async (courseId: number) =>
  (
    await db
      .select({ id: chapters.id })
      .from(chapters)
      .where(eq(chapters.courseId, courseId))
      .orderBy(asc(chapters.orderIndex), asc(chapters.id))
  ).map((r) => r.id);
const enrolled = async (userId: string, courseId: number) =>
  (
    await db
      .select()
      .from(enrollments)
      .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
  ).length === 1;

/** Buys the item, has the admin confirm it, and finishes `courseId` (every chapter): returns the purchase and the certificate code. */
async function buyAndFinish(t: Test, cookie: string, item: object, courseId: number) {
  const bought = await api(cookie, 'POST', '/api/learning/purchases', item);
  const purchase = bought.json().purchase;
  t.equal((await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${purchase.id}/confirm`)).statusCode, 200);
  let code: string | null = null;
  for (const id of await chapterIds(courseId)) {
    code = (await api(cookie, 'POST', `/api/learning/chapters/${id}/completion`)).json().certificateCode ?? code;
  }
  return { purchase, code: code as string };
}

t.test('a refund ends access, revokes the certificate with its reason, and says so on the learners list', async (t) => {
  const { purchase, code } = await buyAndFinish(t, cast.learner.cookie, { courseId: course.id }, course.id);
  t.match(code, /^[0-9a-f]{32}$/, 'the learner earned the certificate');
  const [ch1] = await chapterIds(course.id);

  // Attackers first: nothing changes for them.
  for (const [who, cookie] of [
    ['the buyer', cast.learner.cookie],
    ["another institution's admin", cast.otherAdmin.cookie],
    ["the course's teacher", cast.teacher.cookie],
  ] as const) {
    const res = await form(cookie, `/dashboard/purchases/${purchase.id}/refund`, { reason: 'x' });
    t.equal(res.statusCode, 403, `${who}: 403`);
  }
  t.ok(await enrolled(cast.learner.id, course.id), 'still enrolled after the refusals');

  // Keep ticked without a reason: said on the list, nothing changed.
  const noWhy = await form(cast.admin.cookie, `/dashboard/purchases/${purchase.id}/refund`, {
    reason: 'Dibatalkan',
    keepCertificate: '1',
    keepReason: ' ',
  });
  t.match(noWhy.headers.location, /confirmed=keep-reason-required/);
  t.equal((await db.select().from(purchases).where(eq(purchases.id, purchase.id)))[0]!.status, 'paid', 'not refunded');
  for (const [lang, words] of [
    ['en', 'To keep the certificates, write why'],
    ['id', 'Untuk mempertahankan sertifikat, tulis alasannya'],
  ] as const) {
    t.match((await page(cast.admin.cookie, noWhy.headers.location as string, lang)).body, words, `${lang}: said`);
  }

  // The refund, through the transfers page's form.
  const list = await page(cast.admin.cookie, `/dashboard/transfers?reference=${purchase.reference}`);
  t.match(list.body, 'name="keepCertificate"', 'the refund form offers to keep the certificates');
  const done = await form(cast.admin.cookie, `/dashboard/purchases/${purchase.id}/refund`, { reason: 'Kursus dibatalkan lembaga' });
  t.match(done.headers.location, /confirmed=refunded/);

  // Access ended: the chapters, the API and the course page.
  t.notOk(await enrolled(cast.learner.id, course.id), 'the enrolment is gone');
  t.equal((await api(cast.learner.cookie, 'GET', `/api/learning/chapters/${ch1}`)).statusCode, 403, 'a chapter: 403');
  t.equal((await page(cast.learner.cookie, `/learn/chapters/${ch1}`)).statusCode, 403, 'the chapter page: 403');
  const coursePage = await page(cast.learner.cookie, `/dashboard/courses/${course.id}`);
  t.match(coursePage.body, `/dashboard/courses/${course.id}/purchase`, 'the course page offers to buy it again');

  // The certificate: revoked, with the refund's reason; its credit voided.
  const [cert] = await db.select().from(certificates).where(eq(certificates.code, code));
  t.ok(cert!.revokedAt, 'revoked');
  t.equal(cert!.revokedReason, 'Refund: Kursus dibatalkan lembaga');
  t.ok((await db.select().from(credits).where(eq(credits.certificateId, cert!.id)))[0]!.voidedAt, 'its credit is voided');
  const publicPage = await w.app.inject({ url: `/certificates/${code}`, headers: { 'accept-language': 'en' } });
  t.match(publicPage.body, 'Refund: Kursus dibatalkan lembaga', 'the public page says why');

  // The learners list, its CSV and the learner's page say so.
  for (const [lang, words] of [
    ['en', 'Refunded '],
    ['id', 'Dana dikembalikan '],
  ] as const) {
    const learners = await page(cast.admin.cookie, `/dashboard/courses/${course.id}/learners`, lang);
    t.equal(learners.statusCode, 200);
    t.match(learners.body, cast.learner.name, `${lang}: the learner is still listed`);
    t.match(learners.body, words, `${lang}: marked refunded`);
    t.match(learners.body, 'Kursus dibatalkan lembaga', `${lang}: with the reason`);
  }
  const csv = await page(cast.teacher.cookie, `/dashboard/courses/${course.id}/learners.csv`);
  const [header, line] = csv.body.trim().split('\r\n');
  t.match(header, /"refunded_at","refund_reason","certificate_kept_reason"$/);
  t.match(line, /"\d{4}-\d\d-\d\dT[^"]+","Kursus dibatalkan lembaga",$/, 'the CSV line says when and why');
  const learnerPage = await page(cast.admin.cookie, `/dashboard/courses/${course.id}/learners/${cast.learner.id}`);
  t.equal(learnerPage.statusCode, 200, "the learner's page still opens");
  t.match(learnerPage.body, 'purchase was refunded');
  t.notMatch(learnerPage.body, '/grants"', 'no grant form for a learner whose access ended');

  // Once each: a second refund and a revocation by the operator change nothing more.
  t.equal((await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${purchase.id}/refund`, { reason: 'again' })).statusCode, 409);
  t.equal((await revokeCertificate(db, outboxOnly, code, 'again', new Date())).outcome, 'already');
  await drain(w.app, db);
  const types = hooks.got.map((g) => JSON.parse(g.body).type);
  t.same(types.sort(), ['certificate.revoked', 'purchase.refunded'], 'one purchase.refunded, one certificate.revoked');
  const refunded = hooks.got.map((g) => JSON.parse(g.body)).find((b) => b.type === 'purchase.refunded');
  t.match(refunded.data.purchase, {
    id: purchase.id,
    unenrolledCourseIds: [course.id],
    revokedCertificateCodes: [code],
    certificateKeptReason: null,
  });
  const revoked = hooks.got.map((g) => JSON.parse(g.body)).find((b) => b.type === 'certificate.revoked');
  t.match(revoked.data, { certificate: { code, reason: 'Refund: Kursus dibatalkan lembaga' }, member: { membershipId: 'A-0001' } });

  // Bought again later: the learner is back, with what they did.
  const again = await api(cast.learner.cookie, 'POST', '/api/learning/purchases', { courseId: course.id });
  t.equal(again.statusCode, 201, 'the course can be bought again');
});

t.test('the admin keeps the certificate and says why: enrolment ends, the certificate stays', async (t) => {
  const learner = cast.thirdLearner;
  const { purchase, code } = await buyAndFinish(t, learner.cookie, { courseId: course.id }, course.id);
  const bad = [
    { reason: 'x', keepCertificateReason: '' },
    { reason: 'x', keepCertificateReason: 'a\u0000b' },
    { reason: 'x', keepCertificateReason: 'y'.repeat(501) },
    { reason: 'x', keep: 'y' },
  ];
  for (const body of bad) {
    const res = await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${purchase.id}/refund`, body);
    t.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 60));
    t.equal(res.json().success, false);
  }
  t.ok(await enrolled(learner.id, course.id), 'nothing changed by the bad bodies');
  const res = await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${purchase.id}/refund`, {
    reason: 'Pindah ke angkatan berikutnya',
    keepCertificateReason: 'Sudah lulus sebelum pembatalan',
  });
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    success: true,
    purchase: { status: 'refunded' },
    unenrolledCourseIds: [course.id],
    revokedCertificateCodes: [],
    certificateKeptReason: 'Sudah lulus sebelum pembatalan',
  });
  t.notOk(await enrolled(learner.id, course.id), 'access ended');
  t.equal((await db.select().from(certificates).where(eq(certificates.code, code)))[0]!.revokedAt, null, 'the certificate stays');
  const learners = await page(cast.admin.cookie, `/dashboard/courses/${course.id}/learners`);
  t.match(learners.body, 'Certificate kept: Sudah lulus sebelum pembatalan');
});

t.test('a bundle: both enrolments end; a course another paid purchase covers stays', async (t) => {
  const other = await makeCourse(db, cast.teacher, { ...priced, name: 'Etika Pajak' }, 1);
  const third = await makeCourse(db, cast.teacher, { ...priced, name: 'Etika Bisnis' }, 1);
  const pair = await makeBundle(db, other.id, third.id, { price: '150000' });
  const learner = cast.otherLearner;
  const bought = (await api(learner.cookie, 'POST', '/api/learning/purchases', { bundleId: pair.id })).json().purchase;
  t.equal((await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${bought.id}/confirm`)).statusCode, 200);
  t.ok((await enrolled(learner.id, other.id)) && (await enrolled(learner.id, third.id)), 'enrolled in both');
  // Another paid purchase of the same buyer holds the third course (a late payment, say).
  await db.insert(purchases).values({ userId: learner.id, courseId: third.id, amount: '90000', status: 'paid', paidAt: new Date() });
  const res = await api(cast.admin.cookie, 'POST', `/api/learning/purchases/${bought.id}/refund`, { reason: 'Paket dibatalkan' });
  t.equal(res.statusCode, 200);
  t.same(res.json().unenrolledCourseIds, [other.id], 'the course only this purchase paid for');
  t.notOk(await enrolled(learner.id, other.id));
  t.ok(await enrolled(learner.id, third.id), 'the course the other purchase paid for stays');
});
