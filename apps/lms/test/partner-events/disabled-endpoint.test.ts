import { partnerEvents, webhookDeliveries } from '@lms/db';
import { asc } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { cliFor } from '../helpers/cli.js';
import { makeCourse } from '../learning/enrolment-fixtures.js';
import { addEndpointRow, drain, endpointRow, eventsWorld, receiver } from './fixtures.js';

// Issue 40, finding 7: events were queued only for active endpoints, so whatever happened while an
// endpoint was disabled (by an operator, by a 410, after failing for days, or because our own
// outbound rules refused its URL: blocked-url.test.ts) was never sent, and the runbook's
// `webhook replay <id> --since` found nothing to send again. Now a disabled endpoint's deliveries
// wait and go out when it is enabled (their bound: waiting-retention.test.ts).

t.test('an event while an endpoint is disabled waits and arrives after `webhook enable`', async (t) => {
  const w = await eventsWorld(t);
  const cli = cliFor(w.db);
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);

  t.match(await cli('webhook', 'disable', String(end.id), '--reason', 'partner maintenance'), { code: 0 });
  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201, 'the member enrols while the endpoint is disabled');
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 0, 'nothing is sent to a disabled endpoint');
  const [event] = await w.db.db.select().from(partnerEvents);
  t.ok(event, 'the event is in the outbox');
  const waiting = await w.db.db.select().from(webhookDeliveries);
  t.match(waiting, [{ endpointId: end.id, status: 'pending', attempts: 0 }], 'its delivery waits');
  t.match((await cli('webhook', 'list')).out, /disabled: partner maintenance\s+1\s/, '`webhook list` shows it waiting');

  t.match(await cli('webhook', 'enable', String(end.id)), { code: 0 });
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1, 'it arrives after the endpoint is enabled');
  t.equal(a.got[0]!.headers['webhook-id'], event!.id, 'with the webhook-id written at commit');
  const payload = new Webhook(end.secret).verify(a.got[0]!.body, a.got[0]!.headers as Record<string, string>) as {
    type: string;
    data: { member: unknown };
  };
  t.equal(payload.type, 'enrollment.created');
  t.same(payload.data.member, { iss: 'a.example.org', membershipId: 'A-0001' });
  t.equal((await w.db.db.select().from(webhookDeliveries))[0]!.status, 'delivered');
});

t.test('an endpoint disabled after failing for too long keeps everything after it; enable delivers it all', async (t) => {
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [50, 200, 200], disableAfterMs: 100 } });
  const cli = cliFor(w.db);
  let up = false;
  const a = await receiver(t, (_n, _req, res) => {
    res.statusCode = up ? 200 : 500;
    res.end(up ? 'ok' : 'down');
  });
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  const disabled = await endpointRow(w.db.db, end.id);
  t.equal(disabled.status, 'disabled', 'disabled after failing past the limit');
  t.match(disabled.disabledReason, /every delivery failed since/);
  const failedSoFar = a.got.length;

  // After the auto-disable: another enrolment, and a certificate on the way.
  const second = await makeCourse(w.db.db, w.cast.teacher, { enrollmentType: 'open' }, 1);
  t.equal((await w.enrol(second.id, w.cast.learner.cookie)).statusCode, 201);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, failedSoFar, 'nothing sent while disabled');

  up = true;
  t.match(await cli('webhook', 'enable', String(end.id)), { code: 0 });
  await drain(w.app, w.db.db);
  const events = await w.db.db.select().from(partnerEvents).orderBy(asc(partnerEvents.seq));
  t.equal(events.length, 2, 'both events are in the outbox');
  const delivered = a.got.slice(failedSoFar).map((g) => g.headers['webhook-id']);
  t.same(delivered.sort(), events.map((e) => e.id).sort(), 'the one pending at the disable and the one after it arrive, once each');
  const rows = await w.db.db.select().from(webhookDeliveries);
  t.ok(
    rows.every((d) => d.status === 'delivered'),
    'every delivery delivered',
  );
});

t.test('`webhook replay <id> --since` queues again what a disabled endpoint missed, and what it never had', async (t) => {
  const w = await eventsWorld(t);
  const cli = cliFor(w.db);
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  const since = new Date(Date.now() - 1_000).toISOString();
  t.match(await cli('webhook', 'disable', String(end.id)), { code: 0 });
  for (let i = 0; i < 3; i++) {
    const c = await makeCourse(w.db.db, w.cast.teacher, { enrollmentType: 'open' }, 1);
    t.equal((await w.enrol(c.id, w.cast.learner.cookie)).statusCode, 201);
  }
  const replayed = await cli('webhook', 'replay', String(end.id), '--since', since);
  t.equal(replayed.code, 0, replayed.err);
  t.match(replayed.out, /^3 deliveries queued again$/, 'the three events of the outage, not 0');
  t.match(replayed.err, /disabled: they go out when it is enabled/);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 0, 'still waiting: the endpoint is disabled');
  t.match(await cli('webhook', 'enable', String(end.id)), { code: 0 });
  await drain(w.app, w.db.db);
  const ids = (await w.db.db.select({ id: partnerEvents.id }).from(partnerEvents)).map((e) => e.id).sort();
  t.same(a.got.map((g) => g.headers['webhook-id']).sort(), ids, 'each of the three, once');

  // An endpoint added after the events: replay --since makes the deliveries it never had.
  const b = await receiver(t);
  const late = await addEndpointRow(w.db.db, w.partnerA, b.url, ['enrollment.created']);
  const backfill = await cli('webhook', 'replay', String(late.id), '--since', since);
  t.match(backfill.out, /^3 deliveries queued again$/);
  t.equal(backfill.err, '', 'active: nothing to warn about');
  await drain(w.app, w.db.db);
  t.same(b.got.map((g) => g.headers['webhook-id']).sort(), ids, 'the new endpoint gets the kept events, signed with its own secret');
  t.ok(new Webhook(late.secret).verify(b.got[0]!.body, b.got[0]!.headers as Record<string, string>));
  t.equal(a.got.length, 3, 'the first endpoint got nothing more');
  // Another partner's endpoint never gets partner A's events, whatever the replay asks.
  const other = await receiver(t);
  const bEnd = await addEndpointRow(w.db.db, w.partnerB, other.url);
  t.match((await cli('webhook', 'replay', String(bEnd.id), '--since', since)).out, /^0 deliveries queued again$/);
  await drain(w.app, w.db.db);
  t.equal(other.got.length, 0);
});
