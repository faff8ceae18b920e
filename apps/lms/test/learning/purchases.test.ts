import { courses, enrollments, purchases } from '@lms/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { abortFirstTryByDeadlock, holdTransaction, waitForLockWait } from '../helpers/lock-holder.js';
import { asSession, makeBundle, makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

const NOW = new Date('2026-07-01T08:00:00.000Z');
const REFERENCE = /^LMS-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/;

t.test('purchases', async (t) => {
  const { app, db } = await buildTestApp(t, {
    deps: { clock: () => NOW },
    config: {
      BANK_TRANSFER_BANK: 'Bank Contoh',
      BANK_TRANSFER_ACCOUNT_NUMBER: '123-456-789',
      BANK_TRANSFER_ACCOUNT_NAME: 'LMS Foundation',
    },
  });
  const cast = await makeCast(app, db.db);
  const { teacher, learner, otherLearner, admin } = cast;
  const buy = (cookie: string, body: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/learning/purchases', headers: { ...asSession(cookie), ...headers }, payload: body });
  const confirm = (id: number, cookie: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/confirm`, headers: { ...asSession(cookie), ...headers } });
  const enrol = (courseId: number, cookie: string) =>
    app.inject({ method: 'POST', url: `/api/learning/courses/${courseId}/enrollment`, headers: asSession(cookie) });
  const enrolled = async (userId: string, courseId: number) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
    ).length;
  const priced = { isPurchasable: true, price: '150000', priceNonMember: '250000.50', priceMahasiswa: '50000' } as const;

  await t.test('a course: pending at the tier price, paid and enrolled by the admin', async (t) => {
    const course = await makeCourse(db.db, teacher, { ...priced, name: 'Paid course', enrollmentType: 'code', enrollmentCode: 'SECRET' });
    await setTier(db.db, learner.id, 'umum');
    t.equal((await enrol(course.id, learner.cookie)).statusCode, 402, 'unpaid: 402');

    const started = await buy(learner.cookie, { courseId: course.id });
    t.equal(started.statusCode, 201);
    const body = started.json();
    t.match(body, {
      success: true,
      purchase: {
        courseId: course.id,
        bundleId: null,
        itemName: 'Paid course',
        amount: '250000.50',
        currency: 'IDR',
        status: 'pending',
        provider: 'bank_transfer',
        paidAt: null,
        createdAt: NOW.toISOString(),
      },
      instructions: {
        method: 'bank_transfer',
        amount: '250000.50',
        currency: 'IDR',
        bankName: 'Bank Contoh',
        accountNumber: '123-456-789',
        accountName: 'LMS Foundation',
      },
    });
    t.match(body.purchase.reference, REFERENCE, 'a transfer reference people can type');
    t.equal(body.instructions.reference, body.purchase.reference);
    t.match(body.instructions.text, body.purchase.reference, 'the instructions name the reference');

    const again = await buy(learner.cookie, { courseId: course.id });
    t.equal(again.statusCode, 200, 'a second request: 200');
    t.equal(again.json().purchase.id, body.purchase.id, 'the same open purchase');
    t.equal(again.json().purchase.reference, body.purchase.reference);
    t.equal((await enrol(course.id, learner.cookie)).statusCode, 402, 'pending is not paid: still 402');

    // Who may not confirm.
    const buyerAdmin = await makeUser(db.db, { role: 'admin', institutionId: cast.institutionId });
    const buyerAdminCookie = await sessionCookieFor(app, buyerAdmin.id);
    const own = (await buy(buyerAdminCookie, { courseId: course.id })).json().purchase;
    const selfConfirm = await confirm(own.id, buyerAdminCookie);
    t.equal(selfConfirm.statusCode, 403, 'a buyer cannot confirm their own purchase, even an admin');
    t.same(selfConfirm.json(), { success: false, error: 'A buyer cannot decide on their own purchase' });
    for (const [who, cookie] of [
      ['the buyer (a student)', learner.cookie],
      ['another student', otherLearner.cookie],
      ["the course's teacher", teacher.cookie],
      ['an admin of another institution', cast.otherAdmin.cookie],
    ] as const) {
      const res = await confirm(body.purchase.id, cookie);
      t.equal(res.statusCode, 403, `${who}: 403`);
    }
    t.equal((await confirm(body.purchase.id, admin.cookie, { origin: 'https://evil.example' })).statusCode, 403, 'CSRF: a foreign Origin');
    const noHeader = await app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${body.purchase.id}/confirm`,
      headers: { cookie: admin.cookie },
    });
    t.equal(noHeader.statusCode, 403, 'CSRF: no x-requested-with');
    const byKey = await app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${body.purchase.id}/confirm`,
      headers: { 'x-api-key': await apiKeyFor(db.db, teacher.id) },
    });
    t.equal(byKey.statusCode, 403, 'an API key: 403');
    t.equal((await confirm(999_999, admin.cookie)).statusCode, 404, 'an unknown purchase: 404');
    const [still] = await db.db.select().from(purchases).where(eq(purchases.id, body.purchase.id));
    t.equal(still!.status, 'pending', 'nothing above changed the purchase');
    t.equal(await enrolled(learner.id, course.id), 0);

    const pending = await app.inject({ method: 'GET', url: '/api/learning/purchases/pending', headers: { cookie: admin.cookie } });
    t.equal(pending.statusCode, 200);
    t.same(
      pending.json().purchases.map((p: { id: number; buyer: { id: string } }) => [p.id, p.buyer.id]),
      [
        [body.purchase.id, learner.id],
        [own.id, buyerAdmin.id],
      ],
      "the institution's admin sees the pending transfers",
    );
    const ownList = await app.inject({ method: 'GET', url: '/api/learning/purchases/pending', headers: { cookie: buyerAdminCookie } });
    t.same(
      ownList.json().purchases.map((p: { id: number }) => p.id),
      [body.purchase.id],
      'never their own',
    );
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/api/learning/purchases/pending',
      headers: { cookie: cast.otherAdmin.cookie },
    });
    t.same(elsewhere.json().purchases, [], "another institution's admin sees none");
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/learning/purchases/pending', headers: { cookie: teacher.cookie } })).statusCode,
      403,
    );

    const confirmed = await confirm(body.purchase.id, admin.cookie);
    t.equal(confirmed.statusCode, 200);
    t.match(confirmed.json(), {
      success: true,
      purchase: { id: body.purchase.id, status: 'paid', paidAt: NOW.toISOString() },
      enrolledCourseIds: [course.id],
    });
    const [paid] = await db.db.select().from(purchases).where(eq(purchases.id, body.purchase.id));
    t.equal(paid!.confirmedBy, admin.id, 'the confirming admin is recorded');
    t.equal(await enrolled(learner.id, course.id), 1, 'the buyer is enrolled (whatever the enrolment type)');
    const twice = await confirm(body.purchase.id, admin.cookie);
    t.equal(twice.statusCode, 409, 'confirming twice: 409');
    t.same(twice.json(), { success: false, error: 'This purchase is already paid' });
    t.equal((await confirm(body.purchase.id, cast.superAdmin.cookie)).statusCode, 409, 'by anyone');
    t.equal((await enrol(course.id, learner.cookie)).statusCode, 200, 'enrolment now answers 200');
    t.equal((await buy(learner.cookie, { courseId: course.id })).statusCode, 409, 'buying again: 409 (already enrolled)');

    const mine = await app.inject({ method: 'GET', url: '/api/learning/purchases', headers: { cookie: learner.cookie } });
    t.same(
      mine.json().purchases.map((p: { id: number; status: string }) => [p.id, p.status]),
      [[body.purchase.id, 'paid']],
      'my purchases',
    );
  });

  await t.test('tier prices, and what cannot be bought', async (t) => {
    const course = await makeCourse(db.db, teacher, { ...priced, priceNonMember: null, priceMahasiswa: null });
    for (const [tier, amount] of [
      ['anggota', '150000.00'],
      ['umum', '150000.00'], // no non-member price: the price
      ['mahasiswa', '150000.00'],
    ] as const) {
      const buyer = await makeUser(db.db);
      await setTier(db.db, buyer.id, tier);
      const res = await buy(await sessionCookieFor(app, buyer.id), { courseId: course.id });
      t.equal(res.json().purchase.amount, amount, `${tier}: ${amount}`);
    }
    const student = await makeCourse(db.db, teacher, priced);
    await setTier(db.db, otherLearner.id, 'mahasiswa');
    t.equal((await buy(otherLearner.cookie, { courseId: student.id })).json().purchase.amount, '50000.00', 'mahasiswa: the student price');

    const notForSale = await makeCourse(db.db, teacher, { isPurchasable: false, price: '100' });
    t.equal((await buy(otherLearner.cookie, { courseId: notForSale.id })).statusCode, 409, 'not purchasable: 409');
    const free = await makeCourse(db.db, teacher, { isPurchasable: true, price: '0' });
    t.equal((await buy(otherLearner.cookie, { courseId: free.id })).statusCode, 409, 'free at the tier: 409');
    const draft = await makeCourse(db.db, teacher, { ...priced, isPublished: false });
    t.equal((await buy(otherLearner.cookie, { courseId: draft.id })).statusCode, 404, 'not buyer-visible: 404');
    t.equal((await buy(otherLearner.cookie, { courseId: 999_999 })).statusCode, 404, 'unknown: 404');
    t.equal((await buy(otherLearner.cookie, { courseId: student.id, bundleId: 1 })).statusCode, 400, 'both ids: 400');
    t.equal((await buy(otherLearner.cookie, {})).statusCode, 400, 'neither: 400');
    // No body field lets a buyer set the status or the amount.
    const forged = await buy(otherLearner.cookie, { courseId: student.id, status: 'paid' });
    t.equal(forged.statusCode, 400, 'a status in the body: 400');
    const forgedAmount = await buy(otherLearner.cookie, { courseId: student.id, amount: '1' });
    t.equal(forgedAmount.statusCode, 400, 'an amount in the body: 400');
    for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: '/api/learning/purchases/1',
        headers: asSession(otherLearner.cookie),
        payload: { status: 'paid' },
      });
      t.equal(res.statusCode, 404, `${method} on a purchase: no such route`);
    }
    const unauthenticated = await app.inject({ method: 'POST', url: '/api/learning/purchases', payload: { courseId: student.id } });
    t.equal(unauthenticated.statusCode, 401);
  });

  await t.test('a bundle: the bundle price for the tier; confirmation enrols in both courses', async (t) => {
    const one = await makeCourse(db.db, teacher, { ...priced, name: 'One', price: '100000' });
    const two = await makeCourse(db.db, teacher, { ...priced, name: 'Two', price: '200000.25' });
    const summed = await makeBundle(db.db, one.id, two.id); // no price: the two prices added up
    const discounted = await makeBundle(db.db, two.id, one.id, { price: '250000', priceNonMember: '275000' });
    const buyer = await makeUser(db.db);
    const cookie = await sessionCookieFor(app, buyer.id);
    await setTier(db.db, buyer.id, 'anggota');
    const first = (await buy(cookie, { bundleId: summed.id })).json();
    t.equal(first.purchase.amount, '300000.25', 'no bundle price: the sum');
    // A second bundle of the same two courses while the first waits for payment: paying both would pay each course twice.
    const overlapping = await buy(cookie, { bundleId: discounted.id });
    t.equal(overlapping.statusCode, 409, 'a bundle whose courses are already being paid for');
    t.same(overlapping.json(), {
      success: false,
      error: 'A purchase holding "Two" is waiting for payment: pay or cancel it before buying this bundle',
    });
    const cancelled = await app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${first.purchase.id}/cancel`,
      headers: asSession(cookie),
    });
    t.equal(cancelled.json().purchase.status, 'cancelled', 'the buyer cancels the first');
    const member = (await buy(cookie, { bundleId: discounted.id })).json();
    t.equal(member.purchase.amount, '250000.00', 'anggota: the bundle price');
    t.equal(member.purchase.itemName, 'A pair');
    const publicBuyer = await makeUser(db.db);
    await setTier(db.db, publicBuyer.id, 'umum');
    t.equal(
      (await buy(await sessionCookieFor(app, publicBuyer.id), { bundleId: discounted.id })).json().purchase.amount,
      '275000.00',
      'umum: the non-member price',
    );

    const confirmed = await confirm(member.purchase.id, cast.superAdmin.cookie);
    t.equal(confirmed.statusCode, 200, 'a super_admin confirms');
    t.same(confirmed.json().enrolledCourseIds, [two.id, one.id], 'both courses');
    t.equal(await enrolled(buyer.id, one.id), 1);
    t.equal(await enrolled(buyer.id, two.id), 1);
    t.equal((await enrol(one.id, cookie)).statusCode, 200, 'enrolled in the first');
    const again = await buy(cookie, { bundleId: summed.id });
    t.equal(again.statusCode, 409, 'the other bundle of the same courses: nothing left to buy');
    t.same(again.json().error, 'You are already enrolled in both courses of this bundle');

    // A bundle with a course of another institution: that institution's admin alone cannot confirm it.
    const elsewhereTeacher = await makeUser(db.db, { role: 'teacher', institutionId: cast.otherInstitutionId });
    const foreign = await makeCourse(db.db, { id: elsewhereTeacher.id, institutionId: cast.otherInstitutionId }, priced);
    const mixed = await makeBundle(db.db, one.id, foreign.id);
    // A buyer with nothing else waiting (one who never paid has one purchase waiting at a time).
    const mixedBuyer = await makeUser(db.db);
    const mixedPurchase = (await buy(await sessionCookieFor(app, mixedBuyer.id), { bundleId: mixed.id })).json().purchase;
    t.equal((await confirm(mixedPurchase.id, admin.cookie)).statusCode, 403, 'an admin of one of the two institutions: 403');
    t.equal((await confirm(mixedPurchase.id, cast.otherAdmin.cookie)).statusCode, 403, 'nor of the other');
    t.equal((await confirm(mixedPurchase.id, cast.superAdmin.cookie)).statusCode, 200, 'a super_admin: 200');

    // A bundle whose course is not buyer-visible is not for sale.
    await db.db.update(courses).set({ isPublished: false }).where(eq(courses.id, foreign.id));
    t.equal((await buy(await sessionCookieFor(app, (await makeUser(db.db)).id), { bundleId: mixed.id })).statusCode, 404);
  });

  await t.test('concurrent starts share one pending purchase; concurrent confirmations pay it once', async (t) => {
    const course = await makeCourse(db.db, teacher, priced);
    const buyer = await makeUser(db.db);
    const cookie = await sessionCookieFor(app, buyer.id);
    const starts = await Promise.all(Array.from({ length: 10 }, () => buy(cookie, { courseId: course.id })));
    t.same(starts.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201], 'one 201, the others 200');
    t.equal(new Set(starts.map((r) => r.json().purchase.id)).size, 1, 'all the same purchase');
    const id = starts[0]!.json().purchase.id;
    const confirms = await Promise.all([
      ...Array.from({ length: 5 }, () => confirm(id, admin.cookie)),
      ...Array.from({ length: 5 }, () => confirm(id, cast.superAdmin.cookie)),
    ]);
    t.same(confirms.map((r) => r.statusCode).sort(), [200, 409, 409, 409, 409, 409, 409, 409, 409, 409], 'one 200, the others 409');
    t.equal(await enrolled(buyer.id, course.id), 1);
    const rows = await db.db.select().from(purchases).where(eq(purchases.userId, buyer.id));
    t.same(
      rows.map((r) => r.status),
      ['paid'],
      'one purchase, paid',
    );
  });
});

// Confirming a bundle enrols its buyer in both courses with one insert, and each enrolment
// updates its course's counters (a row lock on the course). Two bundles can pair the same two
// courses in opposite orders: confirmed at once in the bundles' orders, one would lock A then B
// and the other B then A, a deadlock, and PostgreSQL would abort one of them (a 500 for that
// admin). The enrolments are inserted in course id order, so both wait in the same order.
// PostgreSQL only: it takes a second connection that holds a course's row.

if (testDatabaseUrl) {
  t.test('two bundles of the same courses in opposite orders, confirmed at once: both enrol, no deadlock', async (t) => {
    const { app, db } = await buildTestApp(t);
    const cast = await makeCast(app, db.db);
    const { teacher, learner, otherLearner, admin } = cast;
    const priced = { isPurchasable: true, price: '150000', priceNonMember: '150000' } as const;
    const a = await makeCourse(db.db, teacher, { ...priced, name: 'Course A' });
    const b = await makeCourse(db.db, teacher, { ...priced, name: 'Course B' });
    const forward = await makeBundle(db.db, a.id, b.id);
    const backward = await makeBundle(db.db, b.id, a.id);
    const buy = async (cookie: string, bundleId: number) => {
      const res = await app.inject({ method: 'POST', url: '/api/learning/purchases', headers: asSession(cookie), payload: { bundleId } });
      t.equal(res.statusCode, 201, res.body);
      return res.json().purchase.id as number;
    };
    const confirm = (id: number) =>
      app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/confirm`, headers: asSession(admin.cookie) });
    await setTier(db.db, learner.id, 'umum');
    await setTier(db.db, otherLearner.id, 'umum');
    const first = await buy(learner.cookie, forward.id);
    const second = await buy(otherLearner.cookie, backward.id);

    // Course A's row is being updated elsewhere (another enrolment in it), so both confirmations
    // queue on it: the first one (A, B) waits for A; the second one comes after it. Had the second
    // updated B on its way (the order B, A), the first would then wait for B while the second
    // waits for A: without the id order, PostgreSQL aborted the second one (a 500).
    const holder = await holdTransaction(app.db, [sql`update courses set student_count = student_count where id = ${a.id}`]);
    const firstDone = confirm(first);
    await waitForLockWait(app.db, 'enrollments');
    const secondDone = confirm(second);
    await waitForLockWait(app.db, 'enrollments', 2);
    await holder.commit();
    const [one, two] = await Promise.all([firstDone, secondDone]);

    t.equal(one.statusCode, 200, `the first confirmation: ${one.body}`);
    t.equal(two.statusCode, 200, `the second confirmation: ${two.body}`);
    t.same(one.json().enrolledCourseIds, [a.id, b.id], 'the first buyer, in the bundle order');
    t.same(two.json().enrolledCourseIds, [b.id, a.id], 'the second buyer, in the bundle order');
    for (const buyer of [learner, otherLearner]) {
      const rows = await db.db
        .select({ courseId: enrollments.courseId })
        .from(enrollments)
        .where(and(eq(enrollments.userId, buyer.id), inArray(enrollments.courseId, [a.id, b.id])));
      t.equal(rows.length, 2, `${buyer.name} is enrolled in both courses`);
    }
    const counts = await db.db
      .select({ id: courses.id, students: courses.studentCount })
      .from(courses)
      .where(inArray(courses.id, [a.id, b.id]));
    t.same(
      counts.map((c) => c.students),
      [2, 2],
      'each course counts both buyers',
    );
  });

  // A deadlock, for real: the confirmation holds the purchase's row and waits for the course's
  // (marking the purchase paid updates the course's counters, a trigger), while another
  // transaction holds the course's and asks for the purchase's. PostgreSQL aborts the confirmation's transaction (it waited
  // first; the other side's deadlock_timeout is set past the test), inTransaction runs it again,
  // and the admin gets their 200: before, a 500.
  t.test('a confirmation caught in a deadlock is rolled back and run again: 200, enrolled once', async (t) => {
    const { app, db } = await buildTestApp(t);
    const { teacher, learner, admin } = await makeCast(app, db.db);
    const course = await makeCourse(db.db, teacher, {
      isPurchasable: true,
      price: '150000',
      priceNonMember: '150000',
      name: 'Locked course',
    });
    await setTier(db.db, learner.id, 'umum');
    const bought = await app.inject({
      method: 'POST',
      url: '/api/learning/purchases',
      headers: asSession(learner.cookie),
      payload: { courseId: course.id },
    });
    t.equal(bought.statusCode, 201, bought.body);
    const purchaseId = bought.json().purchase.id as number;

    const holder = await holdTransaction(app.db, [
      sql`set local deadlock_timeout = '60s'`,
      sql`update courses set student_count = student_count where id = ${course.id}`,
    ]);
    const confirming = app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${purchaseId}/confirm`,
      headers: asSession(admin.cookie),
    });
    // The confirmation holds the purchase and waits for the course; this transaction then asks for the purchase.
    const taken = await abortFirstTryByDeadlock(app.db, holder, {
      firstTryWaitsOn: 'update "purchases"',
      take: sql`select id from purchases where id = ${purchaseId} for update`,
      secondTryWaitsOn: 'for update of "purchases"',
    });
    t.equal(taken.length, 1, 'the purchase row was freed by the aborted try');
    const confirmed = await confirming;

    t.equal(confirmed.statusCode, 200, confirmed.body);
    t.same(confirmed.json().enrolledCourseIds, [course.id]);
    const rows = await db.db.select({ status: purchases.status }).from(purchases).where(eq(purchases.id, purchaseId));
    t.same(rows, [{ status: 'paid' }], 'paid once');
    const enrolledRows = await db.db
      .select()
      .from(enrollments)
      .where(and(eq(enrollments.userId, learner.id), eq(enrollments.courseId, course.id)));
    t.equal(enrolledRows.length, 1, 'enrolled once');
    const [counted] = await db.db.select({ students: courses.studentCount }).from(courses).where(eq(courses.id, course.id));
    t.equal(counted?.students, 1, 'counted once: the aborted try left nothing');
  });
}
