import { chapterCompletions, chapters, enrollments, purchases } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { asSession, makeCast, makeCourse } from './enrolment-fixtures.js';

// An admin confirms a transfer in two steps (a confirmation page, then the form), and can undo a
// confirmation made by mistake within 15 minutes while the learner has not started the course.

const OWN_ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('confirming a transfer: a confirmation step, and an undo for 15 minutes', async (t) => {
  let now = new Date('2026-07-01T08:00:00.000Z');
  const { app, db } = await buildTestApp(t, { deps: { clock: () => now } });
  const cast = await makeCast(app, db.db);
  const { admin, otherAdmin, teacher, learner } = cast;
  const page = (url: string, cookie: string, lang: 'id' | 'en' = 'en') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const post = (url: string, cookie: string) =>
    app.inject({ method: 'POST', url, headers: { cookie, 'content-type': FORM, origin: OWN_ORIGIN }, payload: '' });
  const api = (url: string, cookie: string, body: unknown = {}) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...asSession(cookie), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const enrolled = async (userId: string, courseId: number) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
    ).length;
  const purchaseRow = async (id: number) => (await db.db.select().from(purchases).where(eq(purchases.id, id)))[0]!;

  const course = await makeCourse(db.db, teacher, { name: 'Kursus Berbayar', isPurchasable: true, price: '200000' });
  const started = await api('/api/learning/purchases', learner.cookie, { courseId: course.id });
  t.equal(started.statusCode, 201);
  const id: number = started.json().purchase.id;
  const reference: string = started.json().purchase.reference;

  await t.test('the list links to a confirmation page; nothing is confirmed by one click', async (t) => {
    const list = await page('/dashboard/transfers', admin.cookie);
    t.match(list.body, `<a class="button" href="/dashboard/purchases/${id}/confirm"`);
    t.notMatch(list.body, `<form method="post" action="/dashboard/purchases/${id}/confirm"`, 'no one-click form in the list');
    const confirmPage = await page(`/dashboard/purchases/${id}/confirm`, admin.cookie);
    t.equal(confirmPage.statusCode, 200);
    t.match(confirmPage.body, '<h1>Confirm a transfer</h1>');
    t.match(confirmPage.body, `<code>${reference}</code>`);
    t.match(confirmPage.body, /IDR\s?200,000/);
    t.match(confirmPage.body, `<form method="post" action="/dashboard/purchases/${id}/confirm"><button type="submit"`);
    t.match(confirmPage.body, 'Yes, the money arrived: confirm');
    const id_ = await page(`/dashboard/purchases/${id}/confirm`, admin.cookie, 'id');
    t.match(id_.body, 'Ya, dana sudah diterima: konfirmasi');
    t.equal((await purchaseRow(id)).status, 'pending', 'opening the page changes nothing');

    // Who may not: another institution's admin (404 page), a teacher, the buyer (403 pages).
    const other = await page(`/dashboard/purchases/${id}/confirm`, otherAdmin.cookie);
    t.equal(other.statusCode, 404, "another institution's admin: not found");
    t.notMatch(other.body, reference);
    t.equal((await page(`/dashboard/purchases/${id}/confirm`, teacher.cookie)).statusCode, 403);
    t.equal((await page(`/dashboard/purchases/${id}/confirm`, learner.cookie)).statusCode, 403);
    t.equal((await page('/dashboard/purchases/999999/confirm', admin.cookie)).statusCode, 404);
    const crafted = await page('/dashboard/purchases/abc/confirm', admin.cookie);
    t.ok(crafted.statusCode < 500, `a crafted id: ${crafted.statusCode}`);
  });

  await t.test('confirm, then undo within 15 minutes: pending again, enrolment withdrawn, recorded', async (t) => {
    const confirmed = await post(`/dashboard/purchases/${id}/confirm`, admin.cookie);
    t.equal(confirmed.statusCode, 303);
    t.equal(confirmed.headers.location, `/dashboard/transfers?confirmed=done&undo=${id}`);
    t.equal(await enrolled(learner.id, course.id), 1);
    const after = await page(confirmed.headers.location as string, admin.cookie);
    t.match(after.body, `action="/dashboard/purchases/${id}/undo"`);
    t.match(after.body, 'You can undo it within 15 minutes');

    // Attackers: another institution's admin, the teacher, the buyer, a cross-site form.
    const otherUndo = await api(`/api/learning/purchases/${id}/confirmation/undo`, otherAdmin.cookie);
    t.equal(otherUndo.statusCode, 403);
    t.equal(otherUndo.json().success, false);
    t.equal((await api(`/api/learning/purchases/${id}/confirmation/undo`, teacher.cookie)).statusCode, 403);
    t.equal((await api(`/api/learning/purchases/${id}/confirmation/undo`, learner.cookie)).statusCode, 403);
    const crossSite = await app.inject({
      method: 'POST',
      url: `/dashboard/purchases/${id}/undo`,
      headers: { cookie: admin.cookie, 'content-type': FORM, origin: 'https://evil.example' },
      payload: '',
    });
    t.equal(crossSite.statusCode, 403);
    t.equal((await purchaseRow(id)).status, 'paid', 'none of them undid it');

    now = new Date(now.getTime() + 14 * 60_000);
    const undone = await post(`/dashboard/purchases/${id}/undo`, admin.cookie);
    t.equal(undone.headers.location, '/dashboard/transfers?confirmed=undone');
    const row = await purchaseRow(id);
    t.equal(row.status, 'pending');
    t.equal(row.paidAt, null);
    t.equal(row.confirmedBy, null);
    t.equal(row.confirmationUndoneBy, admin.id, 'who undid it is recorded');
    t.same(row.confirmationUndoneAt, now, 'and when');
    t.equal(row.reference, reference, 'the same reference');
    t.equal(await enrolled(learner.id, course.id), 0, 'the enrolment is withdrawn');
    const said = await page('/dashboard/transfers?confirmed=undone', admin.cookie, 'id');
    t.match(said.body, 'Konfirmasi dibatalkan');
    const again = await api(`/api/learning/purchases/${id}/confirmation/undo`, admin.cookie);
    t.equal(again.statusCode, 409, 'a pending purchase has nothing to undo');
    t.match(again.json().error, 'Only a confirmed payment can be undone');
  });

  await t.test('refused after 15 minutes, and once the learner has started the course', async (t) => {
    t.equal((await api(`/api/learning/purchases/${id}/confirm`, admin.cookie)).statusCode, 200);
    now = new Date(now.getTime() + 15 * 60_000 + 1_000);
    const late = await api(`/api/learning/purchases/${id}/confirmation/undo`, admin.cookie);
    t.equal(late.statusCode, 409);
    t.same(late.json(), { success: false, error: 'A confirmation can be undone for 15 minutes only; this one is older' });
    const lateForm = await post(`/dashboard/purchases/${id}/undo`, admin.cookie);
    t.equal(lateForm.headers.location, '/dashboard/transfers?confirmed=undo-refused');
    t.equal((await purchaseRow(id)).status, 'paid');
    t.equal(await enrolled(learner.id, course.id), 1);

    const second = await makeCourse(db.db, teacher, { name: 'Kursus Kedua', isPurchasable: true, price: '50000' });
    const buy = await api('/api/learning/purchases', learner.cookie, { courseId: second.id });
    const secondId: number = buy.json().purchase.id;
    t.equal((await api(`/api/learning/purchases/${secondId}/confirm`, cast.superAdmin.cookie)).statusCode, 200);
    const [chapter] = await db.db.select().from(chapters).where(eq(chapters.courseId, second.id)).limit(1);
    await db.db.insert(chapterCompletions).values({ userId: learner.id, chapterId: chapter!.id, courseId: second.id });
    const used = await api(`/api/learning/purchases/${secondId}/confirmation/undo`, admin.cookie);
    t.equal(used.statusCode, 409);
    t.match(used.json().error, 'has already started the course');
    t.equal(await enrolled(learner.id, second.id), 1, 'still enrolled');
  });
});
