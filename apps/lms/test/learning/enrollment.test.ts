import { enrollmentRequests, enrollments } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import t from 'tap';
import { apiKeyFor } from '../helpers/fixtures.js';
import { buildTestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { holdTransaction, waitForLockWait } from '../helpers/lock-holder.js';
import { asSession, makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

const START = new Date('2026-07-01T08:00:00.000Z');
const MINUTE = 60_000;

t.test('enrolment', async (t) => {
  let now = START;
  const { app, db } = await buildTestApp(t, { deps: { clock: () => now } });
  const cast = await makeCast(app, db.db);
  const { teacher, learner, otherLearner } = cast;
  const enrol = (courseId: number | string, cookie: string, body?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: `/api/learning/courses/${courseId}/enrollment`,
      headers: { ...asSession(cookie), ...headers },
      ...(body ? { payload: body } : {}),
    });
  const enrolled = async (userId: string, courseId: number) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
    ).length;

  await t.test('an open course: 201, then 200 with the same enrollment', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'open' });
    const first = await enrol(course.id, learner.cookie);
    t.equal(first.statusCode, 201);
    t.same(first.json(), { success: true, enrollment: { courseId: course.id, enrolledAt: START.toISOString() } });
    const again = await enrol(course.id, learner.cookie, {});
    t.equal(again.statusCode, 200);
    t.same(again.json(), first.json(), 'the same enrollment');
    t.equal(await enrolled(learner.id, course.id), 1, 'one row');
  });

  await t.test('courses that are not buyer-visible, and unknown ids, are 404', async (t) => {
    const draft = await makeCourse(db.db, teacher, { isPublished: false });
    const noEvent = await makeCourse(db.db, teacher, { eventCode: null });
    for (const [what, id] of [
      ['a draft', draft.id],
      ['published without an event code', noEvent.id],
      ['unknown', 999_999],
    ] as const) {
      const res = await enrol(id, learner.cookie);
      t.equal(res.statusCode, 404, what);
      t.same(res.json(), { success: false, error: 'Course not found' });
    }
    t.equal((await enrol('2147483648', learner.cookie)).statusCode, 400, 'an id past int4: 400');
    t.equal((await enrol('abc', learner.cookie)).statusCode, 400, 'a non-numeric id: 400');
    t.equal(await enrolled(learner.id, draft.id), 0);
  });

  await t.test('a code course: the code is needed and must match', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'code', enrollmentCode: 'OPEN-SESAME' });
    const missing = await enrol(course.id, learner.cookie);
    t.equal(missing.statusCode, 400);
    t.match(missing.json().error, /needs its enrolment code/);
    const wrong = await enrol(course.id, learner.cookie, { code: 'open-sesame' });
    t.equal(wrong.statusCode, 400);
    t.same(wrong.json(), { success: false, error: 'The enrolment code is wrong' }, 'codes are case-sensitive');
    t.equal(await enrolled(learner.id, course.id), 0, 'not enrolled by a wrong code');
    const right = await enrol(course.id, learner.cookie, { code: 'OPEN-SESAME' });
    t.equal(right.statusCode, 201);
    t.equal(await enrolled(learner.id, course.id), 1);
    const extra = await enrol(course.id, learner.cookie, { code: 'x', extra: true });
    t.equal(extra.statusCode, 400, 'unknown body fields: 400');
    const nul = await enrol(course.id, otherLearner.cookie, { code: 'a\u0000b' });
    t.equal(nul.statusCode, 400, 'a NUL in the code: 400, not 500');
  });

  await t.test('a code course without a code set takes no enrolment by code', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'code', enrollmentCode: null });
    const res = await enrol(course.id, learner.cookie, { code: '' });
    t.equal(res.statusCode, 403);
    t.equal(await enrolled(learner.id, course.id), 0);
  });

  await t.test('wrong codes are limited: 5 per learner and course in 15 minutes, then 429 whatever the code', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'code', enrollmentCode: 'RIGHT' });
    const other = await makeCourse(db.db, teacher, { enrollmentType: 'code', enrollmentCode: 'RIGHT' });
    for (let i = 1; i <= 5; i++) {
      now = new Date(START.getTime() + i * MINUTE);
      const res = await enrol(course.id, otherLearner.cookie, { code: `guess-${i}` });
      t.equal(res.statusCode, 400, `wrong code ${i}: 400`);
    }
    now = new Date(START.getTime() + 6 * MINUTE);
    const sixth = await enrol(course.id, otherLearner.cookie, { code: 'guess-6' });
    t.equal(sixth.statusCode, 429, 'the sixth wrong code: 429');
    t.match(sixth.json(), { success: false, error: /Too many wrong enrolment codes/ });
    // The first attempt (at +1 min) leaves the window at +16 min: 10 minutes from now.
    t.equal(sixth.headers['retry-after'], String(10 * 60), 'Retry-After: until the oldest attempt leaves the window');
    const rightButLimited = await enrol(course.id, otherLearner.cookie, { code: 'RIGHT' });
    t.equal(rightButLimited.statusCode, 429, 'the right code is refused too while limited (no oracle)');
    t.equal(await enrolled(otherLearner.id, course.id), 0);

    t.equal((await enrol(other.id, otherLearner.cookie, { code: 'RIGHT' })).statusCode, 201, 'another course has its own window');
    t.equal((await enrol(course.id, cast.thirdLearner.cookie, { code: 'RIGHT' })).statusCode, 201, 'another learner has their own window');

    now = new Date(START.getTime() + 16 * MINUTE);
    const later = await enrol(course.id, otherLearner.cookie, { code: 'RIGHT' });
    t.equal(later.statusCode, 201, 'once the oldest attempt left the window, the right code enrols');
    now = START;
  });

  await t.test('an approval course: a pending request, decided by the teacher', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'approval' });
    const asked = await enrol(course.id, learner.cookie);
    t.equal(asked.statusCode, 202);
    const request = asked.json().request;
    t.match(request, { courseId: course.id, status: 'pending', decidedAt: null });
    const again = await enrol(course.id, learner.cookie);
    t.equal(again.statusCode, 202);
    t.equal(again.json().request.id, request.id, 'asking again returns the same pending request');
    t.equal(await enrolled(learner.id, course.id), 0, 'not enrolled while pending');

    const list = await app.inject({ method: 'GET', url: '/api/learning/enrollment-requests', headers: { cookie: teacher.cookie } });
    t.equal(list.statusCode, 200);
    t.same(
      list.json().requests.map((r: { id: number; learner: { id: string } }) => [r.id, r.learner.id]),
      [[request.id, learner.id]],
      "the teacher's list holds it",
    );
    const otherList = await app.inject({
      method: 'GET',
      url: '/api/learning/enrollment-requests',
      headers: { cookie: cast.otherTeacher.cookie },
    });
    t.same(otherList.json().requests, [], "another teacher's list does not");
    const studentList = await app.inject({ method: 'GET', url: '/api/learning/enrollment-requests', headers: { cookie: learner.cookie } });
    t.equal(studentList.statusCode, 403, 'a student has no list to decide');

    const decide = (action: 'approve' | 'reject', id: number, cookie: string, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: `/api/learning/enrollment-requests/${id}/${action}`,
        headers: { ...asSession(cookie), ...headers },
      });
    for (const [who, cookie] of [
      ['the learner themself', learner.cookie],
      ['another learner', otherLearner.cookie],
      ['another teacher of the same institution', cast.otherTeacher.cookie],
      ['an admin of another institution', cast.otherAdmin.cookie],
    ] as const) {
      const res = await decide('approve', request.id, cookie);
      t.equal(res.statusCode, 403, `${who}: 403`);
      t.equal(res.json().success, false);
    }
    t.equal(await enrolled(learner.id, course.id), 0, 'nobody else enrolled the learner');
    t.equal((await decide('approve', 999_999, teacher.cookie)).statusCode, 404, 'an unknown request: 404');
    const noHeader = await app.inject({
      method: 'POST',
      url: `/api/learning/enrollment-requests/${request.id}/approve`,
      headers: { cookie: teacher.cookie },
    });
    t.equal(noHeader.statusCode, 403, 'CSRF: without x-requested-with, 403');
    const crossSite = await decide('approve', request.id, teacher.cookie, { origin: 'https://evil.example' });
    t.equal(crossSite.statusCode, 403, 'CSRF: a foreign Origin, 403');

    const approved = await decide('approve', request.id, teacher.cookie);
    t.equal(approved.statusCode, 200);
    t.match(approved.json(), {
      success: true,
      request: { id: request.id, status: 'approved', decidedAt: START.toISOString() },
      enrollment: { courseId: course.id },
    });
    t.equal(await enrolled(learner.id, course.id), 1, 'approval enrolled the learner');
    const [row] = await db.db.select().from(enrollmentRequests).where(eq(enrollmentRequests.id, request.id));
    t.equal(row!.decidedBy, teacher.id, 'the decider is recorded');
    const twice = await decide('approve', request.id, teacher.cookie);
    t.equal(twice.statusCode, 409, 'approving twice: 409');
    t.equal((await decide('reject', request.id, cast.superAdmin.cookie)).statusCode, 409, 'rejecting a decided request: 409');
    t.equal((await enrol(course.id, learner.cookie)).statusCode, 200, 'the learner is now enrolled');

    // Rejection: no enrollment, and the learner may ask again.
    const second = (await enrol(course.id, otherLearner.cookie)).json().request;
    const rejected = await decide('reject', second.id, cast.admin.cookie);
    t.equal(rejected.statusCode, 200, 'an admin of the institution decides too');
    t.match(rejected.json(), { request: { status: 'rejected' }, enrollment: null });
    t.equal(await enrolled(otherLearner.id, course.id), 0, 'rejection enrols nobody');
    const askAgain = await enrol(course.id, otherLearner.cookie);
    t.equal(askAgain.statusCode, 202);
    t.not(askAgain.json().request.id, second.id, 'a new request after a rejection');
    t.equal((await decide('approve', askAgain.json().request.id, cast.superAdmin.cookie)).statusCode, 200, 'a super_admin decides too');
  });

  await t.test('a purchasable course with a price for the tier needs a paid purchase: 402 with the price', async (t) => {
    const course = await makeCourse(db.db, teacher, {
      enrollmentType: 'open',
      isPurchasable: true,
      price: '150000',
      priceNonMember: '250000',
      priceMahasiswa: null,
    });
    const expectations = [
      ['anggota', '150000.00'],
      ['umum', '250000.00'],
      ['mahasiswa', '150000.00'], // no student price: the member price
      [null, '150000.00'], // no tier: the member price
    ] as const;
    for (const [tier, amount] of expectations) {
      await setTier(db.db, learner.id, tier);
      const res = await enrol(course.id, learner.cookie);
      t.equal(res.statusCode, 402, `${tier ?? 'no tier'}: 402`);
      t.same(res.json(), {
        success: false,
        error: `This course must be bought first: ${amount} IDR at your tier. Start a purchase with POST /api/learning/purchases`,
        price: { amount, currency: 'IDR' },
        purchase: { method: 'POST', path: '/api/learning/purchases', body: { courseId: course.id } },
      });
    }
    t.equal(await enrolled(learner.id, course.id), 0);
    const free = await makeCourse(db.db, teacher, { isPurchasable: true, price: '100', priceMahasiswa: '0' });
    await setTier(db.db, learner.id, 'mahasiswa');
    t.equal((await enrol(free.id, learner.cookie)).statusCode, 201, 'a price of 0 at the tier: no purchase needed');
    const notForSale = await makeCourse(db.db, teacher, { isPurchasable: false, price: '100' });
    t.equal((await enrol(notForSale.id, learner.cookie)).statusCode, 201, 'not purchasable: the price does not apply');
  });

  await t.test('session only, with the CSRF rules', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'open' });
    const none = await app.inject({ method: 'POST', url: `/api/learning/courses/${course.id}/enrollment` });
    t.equal(none.statusCode, 401, 'no credentials: 401');
    const key = await apiKeyFor(db.db, teacher.id);
    const byKey = await app.inject({ method: 'POST', url: `/api/learning/courses/${course.id}/enrollment`, headers: { 'x-api-key': key } });
    t.equal(byKey.statusCode, 403, 'an API key: 403');
    const noHeader = await app.inject({
      method: 'POST',
      url: `/api/learning/courses/${course.id}/enrollment`,
      headers: { cookie: learner.cookie },
    });
    t.equal(noHeader.statusCode, 403, 'a session without x-requested-with: 403');
    const crossSite = await enrol(course.id, learner.cookie, undefined, { origin: 'https://evil.example' });
    t.equal(crossSite.statusCode, 403, 'a foreign Origin: 403');
    t.equal(await enrolled(learner.id, course.id), 0, 'none of them enrolled');
    const staff = await enrol(course.id, cast.admin.cookie);
    t.equal(staff.statusCode, 201, 'staff may enrol too');
  });
});

// A deadlock, for real: enrolling in an open course inserts the enrolment, whose trigger then
// updates the course's counters, and queues its partner event, in one transaction. Another
// transaction holds the course's row and inserts the same enrolment, so it waits for the request's
// uncommitted row while the request waits for the course: PostgreSQL aborts the request's
// transaction (it waited first). inTransaction runs it again, which waits for the other one to
// end, then enrols: the learner gets their 201 (never a 5xx), one enrolment is kept.
// PostgreSQL only (a second connection).
if (testDatabaseUrl) {
  t.test('an enrolment caught in a deadlock is run again in its transaction: 201, one enrolment', async (t) => {
    const { app, db } = await buildTestApp(t);
    const { teacher, learner } = await makeCast(app, db.db);
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'open' });
    const enrol = () =>
      app.inject({ method: 'POST', url: `/api/learning/courses/${course.id}/enrollment`, headers: asSession(learner.cookie) });

    const holder = await holdTransaction(app.db, [
      sql`set local deadlock_timeout = '60s'`,
      sql`update courses set student_count = student_count where id = ${course.id}`,
    ]);
    const deadlocks = async () =>
      Number(
        (await app.db.execute<{ n: string }>(sql`select deadlocks as n from pg_stat_database where datname = current_database()`)).rows[0]
          ?.n,
      );
    const deadlocksBefore = await deadlocks();
    const enrolling = enrol();
    try {
      await waitForLockWait(app.db, 'enrollments');
      await holder.run(sql`insert into enrollments (user_id, course_id) values (${learner.id}, ${course.id}) on conflict do nothing`);
    } finally {
      await holder.rollback();
    }
    const enrolled = await enrolling;

    t.equal(enrolled.statusCode, 201, enrolled.body);
    t.match(enrolled.json(), { success: true, enrollment: { courseId: course.id } });
    const rows = await db.db
      .select()
      .from(enrollments)
      .where(and(eq(enrollments.userId, learner.id), eq(enrollments.courseId, course.id)));
    t.equal(rows.length, 1, 'one enrolment kept (the other transaction rolled back)');
    // The statistics reach pg_stat_database a moment after the aborted transaction ends.
    let seen = await deadlocks();
    for (let i = 0; i < 40 && seen <= deadlocksBefore; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await app.db.execute(sql`select pg_stat_clear_snapshot()`);
      seen = await deadlocks();
    }
    t.ok(seen > deadlocksBefore, `PostgreSQL did detect the deadlock (${deadlocksBefore} -> ${seen})`);

    const again = await enrol();
    t.equal(again.statusCode, 200, 'sent again: already enrolled');
  });
}
