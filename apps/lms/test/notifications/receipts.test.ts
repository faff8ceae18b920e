import { chapters, notifications, quizzes } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeCourseTree } from '../helpers/catalog-fixtures.js';
import { asSession, makeCast, makeCourse } from '../learning/enrolment-fixtures.js';

// Receipts at the source: each domain transaction records its receipt once per key, however
// often the action is repeated, with what the template needs.

const NOW = new Date('2026-07-01T08:00:00.000Z');

t.test('receipts are recorded once each, in the transaction of the change', async (t) => {
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
  const rows = (kind: string) => db.db.select().from(notifications).where(eq(notifications.kind, kind)).orderBy(asc(notifications.id));
  const post = (url: string, cookie: string, payload?: object) =>
    app.inject({ method: 'POST', url, headers: asSession(cookie), ...(payload ? { payload } : {}) });

  await t.test('enrolment.confirmed', async (t) => {
    const course = await makeCourse(db.db, teacher, { name: 'Open course' });
    t.equal((await post(`/api/learning/courses/${course.id}/enrollment`, learner.cookie)).statusCode, 201);
    t.equal((await post(`/api/learning/courses/${course.id}/enrollment`, learner.cookie)).statusCode, 200, 'again: the same enrolment');
    const found = await rows('enrolment.confirmed');
    t.equal(found.length, 1, 'one row (e-mail: no confirmed WhatsApp number)');
    t.match(found[0], {
      key: `enrolment.confirmed:enrollment:${learner.id}:${course.id}:`,
      userId: learner.id,
      institutionId: cast.institutionId,
      channel: 'email',
      state: 'pending',
      attempts: 0,
      data: { courseTitle: 'Open course', courseUrl: `http://localhost:3000/dashboard/courses/${course.id}` },
    });
  });

  await t.test('purchases: transfer instructions, paid, rejected, refunded', async (t) => {
    const priced = { isPurchasable: true, price: '150000', priceNonMember: '150000', priceMahasiswa: '150000' } as const;
    const course = await makeCourse(db.db, teacher, { ...priced, name: 'Paid course' });
    const first = await post('/api/learning/purchases', learner.cookie, { courseId: course.id });
    t.equal(first.statusCode, 201);
    const id = first.json().purchase.id as number;
    t.equal(
      (await post('/api/learning/purchases', learner.cookie, { courseId: course.id })).statusCode,
      200,
      'started again: the same purchase',
    );
    const instructions = await rows('purchase.transfer_instructions');
    t.equal(instructions.length, 1);
    t.match(instructions[0]!.data, {
      itemTitle: 'Paid course',
      amount: 150000,
      reference: first.json().purchase.reference,
      bankName: 'Bank Contoh',
      accountNumber: '123-456-789',
      accountName: 'LMS Foundation',
      payBefore: first.json().purchase.expiresAt,
    });

    t.equal((await post(`/api/learning/purchases/${id}/confirm`, admin.cookie)).statusCode, 200);
    t.equal((await post(`/api/learning/purchases/${id}/confirm`, admin.cookie)).statusCode, 409, 'confirmed again: refused');
    const paid = await rows('purchase.paid');
    t.equal(paid.length, 1);
    t.match(paid[0], {
      userId: learner.id,
      key: `purchase.paid:purchase:${id}:`,
      data: { amount: 150000, courseUrl: `http://localhost:3000/dashboard/courses/${course.id}` },
    });
    t.equal(
      (await rows('enrolment.confirmed')).filter((r) => r.userId === learner.id).length,
      1,
      'no enrolment receipt on top of the payment',
    );

    const refund = await post(`/api/learning/purchases/${id}/refund`, admin.cookie, { reason: 'Cancelled by the buyer' });
    t.equal(refund.statusCode, 200);
    t.equal((await post(`/api/learning/purchases/${id}/refund`, admin.cookie, { reason: 'Again' })).statusCode, 409);
    const refunded = await rows('purchase.refunded');
    t.equal(refunded.length, 1);
    t.match(refunded[0]!.data, { reason: 'Cancelled by the buyer', amount: 150000 });

    const other = await post('/api/learning/purchases', otherLearner.cookie, { courseId: course.id });
    const otherId = other.json().purchase.id as number;
    t.equal((await post(`/api/learning/purchases/${otherId}/rejection`, admin.cookie, { reason: 'No money arrived' })).statusCode, 200);
    t.equal((await post(`/api/learning/purchases/${otherId}/rejection`, admin.cookie, { reason: 'Again' })).statusCode, 409);
    const rejected = await rows('purchase.rejected');
    t.equal(rejected.length, 1);
    t.match(rejected[0], { userId: otherLearner.id, data: { reason: 'No money arrived' } });
    t.equal((await rows('purchase.transfer_instructions')).length, 2, 'each purchase its own instructions');
  });

  await t.test('certificate.issued', async (t) => {
    const course = await makeCourse(db.db, teacher, { name: 'Short course' }, 1);
    const [chapter] = await db.db.select().from(chapters).where(eq(chapters.courseId, course.id));
    t.equal((await post(`/api/learning/courses/${course.id}/enrollment`, otherLearner.cookie)).statusCode, 201);
    const done = await post(`/api/learning/chapters/${chapter!.id}/completion`, otherLearner.cookie);
    t.equal(done.statusCode, 201, done.body);
    t.equal((await post(`/api/learning/chapters/${chapter!.id}/completion`, otherLearner.cookie)).statusCode, 200, 'again: already done');
    const issued = await rows('certificate.issued');
    t.equal(issued.length, 1);
    t.match(issued[0], {
      userId: otherLearner.id,
      data: { courseTitle: 'Short course', certificateUrl: `http://localhost:3000/learn/certificates/${course.id}` },
    });
  });

  await t.test('attempt.granted', async (t) => {
    const course = await makeCourse(db.db, teacher, { name: 'Quiz course' }, 0);
    await makeCourseTree(db.db, course.id, [1]);
    const [quiz] = await db.db.select().from(quizzes).where(eq(quizzes.courseId, course.id)).orderBy(asc(quizzes.id));
    t.equal((await post(`/api/learning/courses/${course.id}/enrollment`, learner.cookie)).statusCode, 201);
    const grant = () =>
      app.inject({
        method: 'POST',
        url: `/dashboard/courses/${course.id}/learners/${learner.id}/grants`,
        headers: { cookie: teacher.cookie, origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `quizId=${quiz!.id}&extra=1&reason=Sick+on+the+day`,
      });
    t.equal((await grant()).statusCode, 303);
    t.equal((await grant()).statusCode, 303);
    const granted = await rows('attempt.granted');
    t.equal(granted.length, 2, 'two grants: two receipts, one each');
    t.not(granted[0]!.key, granted[1]!.key);
    t.match(granted[0]!.data, {
      courseTitle: 'Quiz course',
      quizTitle: quiz!.name,
      quizUrl: `http://localhost:3000/learn/quizzes/${quiz!.id}`,
    });
  });
});
