import { purchases } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { apiKeyFor } from '../helpers/fixtures.js';
import { asSession, makeCourse } from '../learning/enrolment-fixtures.js';
import { addEndpointRow, drain, eventsWorld, receiver } from './fixtures.js';

// A refund is an admin's record that a paid purchase's money went back: JSON route and the
// transfers page's form, who may (as for confirming, never the buyer), and purchase.refunded.

t.test('refund: who may, what may be refunded, the event', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  await addEndpointRow(w.db.db, w.partnerA, a.url, ['purchase.refunded']);
  const { cast } = w;
  const course = await makeCourse(w.db.db, cast.teacher, { isPurchasable: true, price: '90000', priceNonMember: '90000' }, 1);
  const bought = await w.app.inject({
    method: 'POST',
    url: '/api/learning/purchases',
    headers: asSession(cast.learner.cookie),
    payload: { courseId: course.id },
  });
  const id = bought.json().purchase.id as number;
  const reference = bought.json().purchase.reference as string;
  const refund = (cookie: string, payload: unknown = { reason: 'Course cancelled' }) =>
    w.app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/refund`, headers: asSession(cookie), payload: payload as object });

  t.equal((await refund(cast.admin.cookie)).statusCode, 409, 'pending: not refundable');
  t.equal(
    (await w.app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/confirm`, headers: asSession(cast.admin.cookie) }))
      .statusCode,
    200,
  );

  const refused = [
    ['the buyer', cast.learner.cookie, 403],
    ["another institution's admin", cast.otherAdmin.cookie, 403],
    ["the course's teacher", cast.teacher.cookie, 403],
  ] as const;
  for (const [who, cookie, status] of refused) {
    const res = await refund(cookie);
    t.equal(res.statusCode, status, who);
    t.equal(res.json().success, false, who);
  }
  const key = await apiKeyFor(w.db.db, cast.admin.id);
  const withKey = await w.app.inject({
    method: 'POST',
    url: `/api/learning/purchases/${id}/refund`,
    headers: { 'x-api-key': key },
    payload: { reason: 'x' },
  });
  t.ok([401, 403].includes(withKey.statusCode), `an API key is not a session (${withKey.statusCode})`);
  const noReason = await refund(cast.admin.cookie, {});
  t.equal(noReason.statusCode, 400);
  t.equal(noReason.json().success, false);
  t.equal((await w.db.db.select().from(purchases).where(eq(purchases.id, id)))[0]!.status, 'paid', 'nothing changed by the refusals');

  // The transfers page finds it by its reference and offers the refund form.
  const list = await w.app.inject({
    method: 'GET',
    url: `/dashboard/transfers?reference=${reference}`,
    headers: { cookie: cast.admin.cookie },
  });
  t.match(list.body, `/dashboard/purchases/${id}/refund`);
  const form = (cookie: string, body: string, origin = 'http://localhost:3000') =>
    w.app.inject({
      method: 'POST',
      url: `/dashboard/purchases/${id}/refund`,
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body,
    });
  t.equal((await form(cast.admin.cookie, 'reason=x', 'https://evil.example')).statusCode, 403, 'a cross-site form: refused');
  t.equal((await form(cast.otherAdmin.cookie, 'reason=x')).statusCode, 403, "another institution's admin: refused");
  t.match((await form(cast.admin.cookie, 'reason=')).headers.location, /reason-required/);
  const done = await form(cast.admin.cookie, 'reason=Course+cancelled');
  t.match(done.headers.location, /confirmed=refunded/);
  const [row] = await w.db.db.select().from(purchases).where(eq(purchases.id, id));
  t.match(row, { status: 'refunded', closeReason: 'Course cancelled', closedBy: cast.admin.id });
  t.ok(row!.closedAt, 'when');
  t.equal((await refund(cast.admin.cookie)).statusCode, 409, 'refunded already: 409');
  const after = await w.app.inject({
    method: 'GET',
    url: '/dashboard/transfers?confirmed=refunded',
    headers: { cookie: cast.admin.cookie, 'accept-language': 'id' },
  });
  t.match(after.body, 'Pengembalian dana dicatat');

  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1, 'one purchase.refunded');
  t.match(JSON.parse(a.got[0]!.body), {
    type: 'purchase.refunded',
    data: { purchase: { id, reason: 'Course cancelled' }, member: { membershipId: 'A-0001' } },
  });
});
