import { purchases } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { asSession, makeBundle, makeCast, makeCourse } from './enrolment-fixtures.js';

// Pending purchases were capped per buyer only: twenty new members made a hundred transfers for
// the admins to wade through (issue 40, Low). A buyer whose payment was never confirmed now has one
// purchase waiting at a time; PURCHASE_PENDING_MAX is for buyers with a payment behind them. So N
// accounts make N, and each one more costs a real payment.

const time = manualClock(Date.parse('2026-07-01T08:00:00Z'));
const { app, db: testDb } = await buildTestApp(t, { deps: { clock: time.clock }, config: { PURCHASE_PENDING_MAX: 5 } });
const db = testDb.db;
const cast = await makeCast(app, db);
const priced = { isPurchasable: true, price: '150000' } as const;
const courses: Awaited<ReturnType<typeof makeCourse>>[] = [];
for (const name of ['A', 'B', 'C', 'D', 'E', 'F', 'G'])
  courses.push(await makeCourse(db, cast.teacher, { ...priced, name: `Course ${name}` }));
const bundle = await makeBundle(db, courses[5]!.id, courses[6]!.id, { price: '250000' });

const post = (url: string, cookie: string, payload?: object) => app.inject({ method: 'POST', url, headers: asSession(cookie), payload });
const buy = (cookie: string, item: object) => post('/api/learning/purchases', cookie, item);
const waitingTotal = async () =>
  (await app.inject({ url: '/api/learning/purchases/pending', headers: { cookie: cast.admin.cookie } })).json().pagination.total;
const member = async () => {
  const user = await makeUser(db, { role: 'student' });
  return { ...user, cookie: await sessionCookieFor(app, user.id, 30 * 86_400_000) };
};

t.test('twenty new members trying five purchases each make twenty, not a hundred', async (t) => {
  const statuses: number[] = [];
  let firstError = '';
  for (let i = 0; i < 20; i++) {
    const m = await member();
    for (const course of courses.slice(0, 5)) {
      const res = await buy(m.cookie, { courseId: course.id });
      statuses.push(res.statusCode);
      if (res.statusCode === 409 && firstError === '') firstError = res.json().error;
    }
  }
  t.equal(statuses.filter((s) => s === 201).length, 20, 'one each');
  t.equal(statuses.filter((s) => s === 409).length, 80, 'the others refused, 409');
  t.equal(
    firstError,
    'You have a purchase waiting for payment: until your first payment is confirmed, one may wait at a time. Pay or cancel it first',
  );
  t.equal(await waitingTotal(), 20, "the admins' list holds twenty");
  // Clean up: every one cancelled by its buyer.
  for (const p of await db.select().from(purchases).where(eq(purchases.status, 'pending'))) {
    await db.update(purchases).set({ status: 'cancelled', closedAt: time.clock() }).where(eq(purchases.id, p.id));
  }
});

t.test('five purchases sent at once by a new member: one is made', async (t) => {
  const m = await member();
  const results = await Promise.all(courses.slice(0, 5).map((c) => buy(m.cookie, { courseId: c.id })));
  t.same(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409]);
  t.equal((await db.select().from(purchases).where(eq(purchases.userId, m.id))).length, 1);
});

t.test('the course page and the bundles page say why, in both languages', async (t) => {
  const m = await member();
  t.equal((await buy(m.cookie, { courseId: courses[0]!.id })).statusCode, 201);
  const form = (url: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { cookie: m.cookie, origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
    });
  const course = await form(`/dashboard/courses/${courses[1]!.id}/purchase`);
  t.equal(course.headers.location, `/dashboard/courses/${courses[1]!.id}?enrol=too-many-pending#enrol`);
  const bundled = await form(`/dashboard/bundles/${bundle.id}/purchase`);
  t.match(bundled.headers.location, /purchase=too-many-pending/);
  for (const [lang, words] of [
    ['en', 'your other purchases are waiting for payment'],
    ['id', 'pembelian Anda yang lain masih menunggu pembayaran'],
  ] as const) {
    const page = await app.inject({ url: course.headers.location as string, headers: { cookie: m.cookie, 'accept-language': lang } });
    t.equal(page.statusCode, 200);
    t.match(page.body, words, `${lang}: the course page says why`);
    const bundles = await app.inject({ url: bundled.headers.location as string, headers: { cookie: m.cookie, 'accept-language': lang } });
    t.match(bundles.body, words, `${lang}: the bundles page says why`);
  }
});

t.test('after a confirmed payment, PURCHASE_PENDING_MAX applies; an undone confirmation is no payment', async (t) => {
  const m = await member();
  const first = (await buy(m.cookie, { courseId: courses[0]!.id })).json().purchase;
  t.equal((await post(`/api/learning/purchases/${first.id}/confirm`, cast.admin.cookie)).statusCode, 200);
  t.equal((await post(`/api/learning/purchases/${first.id}/confirmation/undo`, cast.admin.cookie)).statusCode, 200, 'undone');
  t.equal((await buy(m.cookie, { courseId: courses[1]!.id })).statusCode, 409, 'still no payment: one waits at a time');
  t.equal((await post(`/api/learning/purchases/${first.id}/confirm`, cast.admin.cookie)).statusCode, 200, 'paid again');
  const statuses = [];
  for (const c of courses.slice(1, 6)) statuses.push((await buy(m.cookie, { courseId: c.id })).statusCode);
  t.same(statuses, [201, 201, 201, 201, 201], 'five waiting at once');
  const sixth = await buy(m.cookie, { courseId: courses[6]!.id });
  t.equal(sixth.statusCode, 409);
  t.equal(sixth.json().error, 'You have 5 purchases waiting for payment, as many as one may: pay or cancel one first');
});
