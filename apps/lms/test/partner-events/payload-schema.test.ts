import { readFile } from 'node:fs/promises';
import { PARTNER_EVENT_BODY_TYPES, PartnerEventBody } from '@lms/contracts';
import { chapters } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { reissueCertificate, revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { PARTNER_EVENT_TYPES } from '../../src/domain/partner-events/enqueue.js';
import { asSession, makeBundle, makeCourse } from '../learning/enrolment-fixtures.js';
import { addEndpointRow, drain, eventsWorld, receiver } from './fixtures.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// The event bodies a partner receives are what docs/api.md ("Calls from the LMS to a partner")
// and PartnerEventBody (packages/contracts) say, field for field: every type is produced here
// through the LMS's own write paths, delivered signed to a receiver, and parsed with the strict
// schema (a field added or renamed without the schema and the docs fails here).

t.test('every event type, as delivered, is exactly its published schema', async (t) => {
  t.same([...PARTNER_EVENT_BODY_TYPES].sort(), [...PARTNER_EVENT_TYPES].sort(), 'the schema covers every type the LMS writes');
  const w = await eventsWorld(t);
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  const hook = new Webhook(end.secret);
  const learner = w.cast.learner;
  const admin = asSession(w.cast.admin.cookie);
  const post = (url: string, headers: Record<string, string>, payload?: Record<string, unknown>) =>
    w.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });

  // enrollment.created, enrollment.completed, certificate.issued: enrol, complete both chapters.
  t.equal((await w.enrol(w.course.id, learner.cookie)).statusCode, 201);
  const list = await w.db.db.select().from(chapters).where(eq(chapters.courseId, w.course.id)).orderBy(asc(chapters.orderIndex));
  for (const ch of list) t.ok((await post(`/api/learning/chapters/${ch.id}/completion`, asSession(learner.cookie))).statusCode < 300);
  await drain(w.app, w.db.db);
  const issued = a.got.map((g) => JSON.parse(g.body)).find((e) => e.type === 'certificate.issued');
  // certificate.revoked, then certificate.issued again (a reissue, a new code).
  t.equal((await revokeCertificate(w.db.db, outboxOnly, issued.data.certificate.code, 'Wrong person', new Date())).outcome, 'revoked');
  t.equal((await reissueCertificate(w.db.db, outboxOnly, issued.data.certificate.code, new Date())).outcome, 'reissued');

  // purchase.paid (a course: with `course`; a bundle: without), purchase.refunded, purchase.unconfirmed.
  const priced = { isPurchasable: true, price: '100000', priceNonMember: '100000' };
  const buy = async (item: { courseId: number } | { bundleId: number }) => {
    const res = await post('/api/learning/purchases', asSession(learner.cookie), item);
    t.equal(res.statusCode, 201, res.body);
    return res.json().purchase.id as number;
  };
  const sold = await buy({ courseId: (await makeCourse(w.db.db, w.cast.teacher, priced, 1)).id });
  t.equal((await post(`/api/learning/purchases/${sold}/confirm`, admin)).statusCode, 200);
  const refunded = await post(`/api/learning/purchases/${sold}/refund`, admin, { reason: 'Course cancelled' });
  t.equal(refunded.statusCode, 200, refunded.body);
  const undone = await buy({ courseId: (await makeCourse(w.db.db, w.cast.teacher, priced, 1)).id });
  t.equal((await post(`/api/learning/purchases/${undone}/confirm`, admin)).statusCode, 200);
  t.equal((await post(`/api/learning/purchases/${undone}/confirmation/undo`, admin)).statusCode, 200);
  const one = await makeCourse(w.db.db, w.cast.teacher, priced, 1);
  const two = await makeCourse(w.db.db, w.cast.teacher, priced, 1);
  const bundle = await buy({ bundleId: (await makeBundle(w.db.db, one.id, two.id, { price: '150000' } as never)).id });
  t.equal((await post(`/api/learning/purchases/${bundle}/confirm`, admin)).statusCode, 200);
  await drain(w.app, w.db.db);

  const seen = new Set<string>();
  for (const got of a.got) {
    const verified = hook.verify(got.body, got.headers as Record<string, string>);
    const parsed = PartnerEventBody.safeParse(verified);
    t.ok(
      parsed.success,
      `${(verified as { type: string }).type}: ${parsed.success ? 'as published' : JSON.stringify(parsed.error.issues)}`,
    );
    if (!parsed.success) continue;
    const body = parsed.data;
    seen.add(body.type);
    t.equal(body.data.eventId, got.headers['webhook-id'], 'data.eventId is the webhook-id');
    t.same(body.data.member, { iss: 'a.example.org', membershipId: 'A-0001' }, 'the member as this partner knows them');
    if (body.type === 'purchase.paid') {
      t.equal(body.data.course === undefined, body.data.purchase.bundleId !== null, 'course: for a course, not for a bundle');
    }
  }
  t.same([...seen].sort(), [...PARTNER_EVENT_TYPES].sort(), 'every type was delivered and checked');
});

t.test("docs/api.md's table of event types lists exactly the contracts' types", async (t) => {
  const api = await readFile(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
  const start = api.indexOf('| `type` | `data` adds |');
  t.ok(start >= 0, 'the table is there');
  const table = api.slice(start, api.indexOf('\n\n', start));
  const rows = [...table.matchAll(/^\| `([a-z]+\.[a-z]+)` \|/gm)].map((m) => m[1]);
  t.same(rows.sort(), [...PARTNER_EVENT_TYPES].sort(), 'one row per type (the list is PartnerEventPayloads in packages/contracts)');
});
