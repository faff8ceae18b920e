import { purchases } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { asSession, makeBundle, makeCast, makeCourse } from './enrolment-fixtures.js';

// A purchase's life after it starts, attacked as the trust review did: one member started 429
// pending purchases that never expired and buried a real buyer's transfer past the admins' list of
// 200; nobody could cancel or reject one; and a buyer who had paid for a course could buy a bundle
// holding it and pay for the course twice.

const time = manualClock(Date.parse('2026-07-01T08:00:00Z'));
const { app, db: testDb } = await buildTestApp(t, {
  deps: { clock: time.clock },
  config: { PURCHASE_PENDING_HOURS: 48, PURCHASE_PENDING_MAX: 3 },
});
const db = testDb.db;
const cast = await makeCast(app, db);
// Sessions that outlive the test's days (the clock moves past purchases' deadlines).
const staff = async (user: { id: string }) => ({ ...user, cookie: await sessionCookieFor(app, user.id, 30 * 86_400_000) });
const [teacher, admin, otherAdmin, superAdmin] = await Promise.all([cast.teacher, cast.admin, cast.otherAdmin, cast.superAdmin].map(staff));
const priced = { isPurchasable: true, price: '150000' } as const;
const courses = await Promise.all(
  ['A', 'B', 'C', 'D', 'E'].map((name) => makeCourse(db, cast.teacher, { ...priced, name: `Course ${name}` })),
);

const post = (url: string, cookie: string, payload?: object) => app.inject({ method: 'POST', url, headers: asSession(cookie), payload });
const buy = (cookie: string, item: object) => post('/api/learning/purchases', cookie, item);
const pending = (cookie: string, query = '') => app.inject({ url: `/api/learning/purchases/pending${query}`, headers: { cookie } });
const person = async () => {
  const user = await makeUser(db, { role: 'student' });
  return { ...user, cookie: await sessionCookieFor(app, user.id, 30 * 86_400_000) };
};

t.test(
  'one member cannot bury the admins’ list: a cap on pending purchases, a paged list with its total, search by reference',
  async (t) => {
    const flooder = await person();
    const buyer = await person();
    time.at(0);
    // A buyer with a payment behind them: PURCHASE_PENDING_MAX applies (before one, a single
    // purchase waits at a time: test/learning/pending-purchase-flood.test.ts).
    const earlier = await makeCourse(db, cast.teacher, { ...priced, name: 'Course F' });
    const first = (await buy(flooder.cookie, { courseId: earlier.id })).json().purchase;
    t.equal((await post(`/api/learning/purchases/${first.id}/confirm`, admin.cookie)).statusCode, 200);
    const real = (await buy(buyer.cookie, { courseId: courses[4]!.id })).json().purchase;
    const statuses: number[] = [];
    for (const course of courses.slice(0, 4)) {
      time.at(60 * (statuses.length + 1));
      statuses.push((await buy(flooder.cookie, { courseId: course.id })).statusCode);
    }
    t.same(statuses, [201, 201, 201, 409], 'the fourth waiting purchase is refused');
    const refused = await buy(flooder.cookie, { courseId: courses[3]!.id });
    t.same(refused.json(), {
      success: false,
      error: 'You have 3 purchases waiting for payment, as many as one may: pay or cancel one first',
    });

    const page1 = (await pending(admin.cookie, '?limit=2')).json();
    t.same(page1.pagination, { page: 1, limit: 2, total: 4, totalPages: 2 }, 'the total of every waiting transfer');
    t.equal(page1.purchases[0].reference, real.reference, "the real buyer's transfer, oldest, comes first");
    const page2 = (await pending(admin.cookie, '?limit=2&page=2')).json();
    t.equal(page2.purchases.length, 2);
    const found = (await pending(admin.cookie, `?reference=${encodeURIComponent(` ${real.reference.toLowerCase()} `)}`)).json();
    t.same(
      found.purchases.map((p: { id: number }) => p.id),
      [real.id],
      'found by its reference, whatever the case and spaces',
    );
    t.same((await pending(otherAdmin.cookie, `?reference=${real.reference}`)).json().purchases, [], "not by another institution's admin");
    t.equal((await pending(admin.cookie, '?limit=101')).statusCode, 400, 'a page of at most 100');

    const html = await app.inject({ url: '/dashboard/transfers?page=1', headers: { cookie: `${admin.cookie}; lms_lang=en` } });
    t.match(html.body, '4 transfers waiting for confirmation, oldest first.');
    t.match(html.body, `<code>${real.reference}</code>`);
    const search = await app.inject({
      url: `/dashboard/transfers?reference=${real.reference}`,
      headers: { cookie: `${admin.cookie}; lms_lang=en` },
    });
    t.equal((search.body.match(/<code>LMS-/g) ?? []).length, 1, 'the page finds one by its reference');
    t.equal((await app.inject({ url: '/dashboard/transfers', headers: { cookie: buyer.cookie } })).statusCode, 403, 'a member: 403');

    // Clean up for the next tests: the flooder cancels theirs.
    for (const p of (await app.inject({ url: '/api/learning/purchases', headers: { cookie: flooder.cookie } })).json().purchases) {
      await post(`/api/learning/purchases/${p.id}/cancel`, flooder.cookie);
    }
    await post(`/api/learning/purchases/${real.id}/cancel`, buyer.cookie);
  },
);

t.test('a purchase expires after PURCHASE_PENDING_HOURS; money that arrives late can still be confirmed, once', async (t) => {
  const buyer = await person();
  time.at(1000);
  const old = (await buy(buyer.cookie, { courseId: courses[0]!.id })).json().purchase;
  t.equal(old.expiresAt, new Date(time.ms + 48 * 3_600_000).toISOString(), 'it says when it expires');
  time.at(1000 + 48 * 3600);
  t.equal((await pending(admin.cookie)).json().pagination.total, 0, 'past its deadline it leaves the list at once');
  t.match(await app.purgeExpiredRows(), { ran: true, expiredPurchases: 1 }, 'housekeeping closes it');
  const [row] = await db.select().from(purchases).where(eq(purchases.id, old.id));
  t.match(row, { status: 'expired', closedAt: new Date(old.expiresAt) });

  const renewed = (await buy(buyer.cookie, { courseId: courses[0]!.id })).json().purchase;
  t.not(renewed.reference, old.reference, 'the buyer starts again, with a new reference');
  const late = (await pending(admin.cookie, `?reference=${old.reference}`)).json().purchases;
  t.equal(late[0].status, 'expired', 'the old reference is still found');
  const confirmed = await post(`/api/learning/purchases/${old.id}/confirm`, admin.cookie);
  t.equal(confirmed.statusCode, 200, 'its money arrived late: confirmed');
  const mine = (await app.inject({ url: '/api/learning/purchases', headers: { cookie: buyer.cookie } })).json().purchases;
  t.match(
    mine.find((p: { id: number }) => p.id === renewed.id),
    { status: 'cancelled', closeReason: `Superseded by purchase ${old.id}, paid late` },
    'the newer one is cancelled, so it is not paid a second time',
  );
  t.equal((await post(`/api/learning/purchases/${renewed.id}/confirm`, admin.cookie)).statusCode, 409, 'and cannot be confirmed');
});

t.test('cancel: only the buyer, only while pending', async (t) => {
  const buyer = await person();
  const other = await person();
  const p = (await buy(buyer.cookie, { courseId: courses[1]!.id })).json().purchase;
  t.equal((await post(`/api/learning/purchases/${p.id}/cancel`, other.cookie)).statusCode, 404, 'another member: 404');
  t.equal((await post(`/api/learning/purchases/${p.id}/cancel`, admin.cookie)).statusCode, 404, 'an admin is not its buyer: 404');
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/learning/purchases/${p.id}/cancel`, headers: { cookie: buyer.cookie } })).statusCode,
    403,
    'CSRF: without the header',
  );
  const cancelled = await post(`/api/learning/purchases/${p.id}/cancel`, buyer.cookie);
  t.equal(cancelled.json().purchase.status, 'cancelled');
  t.equal((await post(`/api/learning/purchases/${p.id}/cancel`, buyer.cookie)).statusCode, 409, 'twice: 409');
  t.equal((await post(`/api/learning/purchases/${p.id}/confirm`, admin.cookie)).statusCode, 409, 'a cancelled purchase is not confirmed');
});

t.test('reject: an admin of its institution, with a reason the buyer reads', async (t) => {
  const buyer = await person();
  const p = (await buy(buyer.cookie, { courseId: courses[2]!.id })).json().purchase;
  const url = `/api/learning/purchases/${p.id}/rejection`;
  t.equal((await post(url, otherAdmin.cookie, { reason: 'no' })).statusCode, 403, "another institution's admin");
  t.equal((await post(url, buyer.cookie, { reason: 'no' })).statusCode, 403, 'the buyer');
  t.equal((await post(url, teacher.cookie, { reason: 'no' })).statusCode, 403, 'a teacher');
  for (const bad of [
    {},
    { reason: '' },
    { reason: '   ' },
    { reason: 'a\u0000b' },
    { reason: 'x'.repeat(501) },
    { reason: 'ok', extra: 1 },
  ]) {
    t.equal((await post(url, admin.cookie, bad)).statusCode, 400, `a bad body: ${JSON.stringify(bad).slice(0, 40)}`);
  }
  const rejected = await post(url, admin.cookie, { reason: 'No transfer arrived with this reference' });
  t.match(rejected.json().purchase, { status: 'rejected', closeReason: 'No transfer arrived with this reference' });
  const seen = (await app.inject({ url: '/api/learning/purchases', headers: { cookie: buyer.cookie } })).json().purchases[0];
  t.match(seen, { status: 'rejected', closeReason: 'No transfer arrived with this reference' }, 'the buyer reads why');
  t.equal((await post(url, superAdmin.cookie, { reason: 'again' })).statusCode, 409, 'twice: 409');
  t.equal((await buy(buyer.cookie, { courseId: courses[2]!.id })).statusCode, 201, 'the buyer may start again');

  // The page's form: a missing reason is said, not a 400.
  const form = (reason: string) =>
    app.inject({
      method: 'POST',
      url: `/dashboard/purchases/${p.id}/reject`,
      headers: { cookie: admin.cookie, origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ reason }).toString(),
    });
  t.equal((await form('')).headers.location, '/dashboard/transfers?confirmed=reason-required');
});

t.test('attacker: nobody pays twice for a course, through a bundle or a course', async (t) => {
  const buyer = await person();
  const [a, b, c] = courses;
  const bundle = await makeBundle(db, a!.id, b!.id, { price: '250000' });
  // The trust review's case: course A paid, then the bundle of A and B at full price.
  const paid = (await buy(buyer.cookie, { courseId: a!.id })).json().purchase;
  t.equal((await post(`/api/learning/purchases/${paid.id}/confirm`, admin.cookie)).statusCode, 200);
  const bundled = await buy(buyer.cookie, { bundleId: bundle.id });
  t.equal(bundled.statusCode, 409);
  t.same(bundled.json().error, `You already have "${a!.name}": buy "${b!.name}" on its own instead of this bundle`);

  // A course waiting for payment, then a bundle holding it; a bundle waiting, then one of its courses.
  const second = await person();
  await buy(second.cookie, { courseId: b!.id });
  t.match((await buy(second.cookie, { bundleId: bundle.id })).json().error, `A purchase holding "${b!.name}" is waiting for payment`);
  const third = await person();
  const other = await makeBundle(db, c!.id, a!.id, { price: '200000' });
  t.equal((await buy(third.cookie, { bundleId: other.id })).statusCode, 201);
  const course = await buy(third.cookie, { courseId: c!.id });
  t.equal(course.statusCode, 409);
  t.match(course.json().error, /Your purchase of the bundle "A pair", waiting for payment, holds this course/);
});
