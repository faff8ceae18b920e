import { webhookAttempts, webhookDeliveries } from '@lms/db';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { cliFor } from '../helpers/cli.js';
import { addEndpointRow, endpointRow, eventsWorld, fastSettings, receiver } from './fixtures.js';

// Issue 40 (low): a delivery refused by our own outbound rules (here a name that resolves to the
// loopback while private addresses are not allowed) was retried for the whole 27.6 h schedule.
// Now the first refusal disables the endpoint with the reason; its deliveries wait for it.

t.test('a delivery refused by our outbound rules pauses the endpoint at once; nothing is lost', async (t) => {
  const w = await eventsWorld(t, { settings: { policy: { allowHttp: true, allowPrivate: false }, retryScheduleMs: [30, 30] } });
  const a = await receiver(t);
  // A name that resolves to the loopback: the form check passes, the socket's lookup refuses it.
  const end = await addEndpointRow(w.db.db, w.partnerA, `http://localhost:${new URL(a.url).port}/hooks`);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  t.equal(await w.app.deliverDueEvents(), 1);
  const row = await endpointRow(w.db.db, end.id);
  t.equal(row.status, 'disabled', 'disabled at the first refusal, not retried for a day');
  t.match(row.disabledReason, /outbound rules refuse its URL: localhost resolves to .*not a public address/);
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.match(d, { status: 'pending', attempts: 0 }, 'the delivery waits; the refusal is not an attempt of the schedule');
  await new Promise((r) => setTimeout(r, 100));
  t.equal(await w.app.deliverDueEvents(), 0, 'no retry after the schedule’s steps');
  t.match(await w.db.db.select().from(webhookAttempts), [{ result: 'blocked', statusCode: null }], 'one attempt in the log: blocked');
  t.equal(a.got.length, 0, 'nothing reached the loopback');

  // The operator allows private addresses (the demo) and enables the endpoint: it arrives.
  const { app: allowed } = await buildTestApp(t, {
    db: w.db,
    config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true },
    deps: { partnerEvents: { settings: fastSettings(), pollMs: 0 } },
  });
  t.match(await cliFor(w.db)('webhook', 'enable', String(end.id)), { code: 0 });
  t.equal(await allowed.deliverDueEvents(), 1);
  t.equal(a.got.length, 1);
  t.equal(a.got[0]!.headers['webhook-id'], d!.eventId);
});
