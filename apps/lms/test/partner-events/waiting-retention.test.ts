import { webhookDeliveries, webhookEndpoints } from '@lms/db';
import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { enqueuePartnerEvent } from '../../src/domain/partner-events/enqueue.js';
import { manualClock } from '../helpers/clock.js';
import { scrape } from '../helpers/metrics.js';
import { addEndpointRow, eventsWorld, receiver } from './fixtures.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// Issue 40, finding 7: what waits for a disabled endpoint must not grow without bound. A delivery
// still waiting when its event is older than WEBHOOK_LOG_RETENTION_DAYS is dropped by
// housekeeping, counted in the log and in lms_webhook_dropped_total; nothing else is.

const DAY = 86_400_000;

t.test('retention: what waits for a disabled endpoint is dropped after WEBHOOK_LOG_RETENTION_DAYS, counted', async (t) => {
  const time = manualClock(Date.now());
  const w = await eventsWorld(t, { clock: time.clock, config: { WEBHOOK_LOG_RETENTION_DAYS: 30 } });
  const metrics = await w.app.metrics.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => metrics.close());
  const a = await receiver(t);
  const b = await receiver(t, (_n, _req, res) => {
    res.statusCode = 503;
    res.end();
  });
  const endA = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await addEndpointRow(w.db.db, w.partnerB, b.url);
  await w.db.db.update(webhookEndpoints).set({ status: 'disabled', disabledReason: 'test' }).where(eq(webhookEndpoints.id, endA.id));
  const event = (userId: string) =>
    enqueuePartnerEvent(w.db.db, outboxOnly, {
      type: 'enrollment.created',
      userId,
      occurredAt: time.clock(),
      data: { enrolledAt: time.clock().toISOString() },
    });
  await event(w.cast.learner.id); // waits for A (disabled)
  await event(w.cast.otherLearner.id); // pending for B (active, never sent here)
  let m = await scrape(metrics.url);
  t.equal(m.value('lms_webhook_waiting_for_disabled'), 1, 'one waiting for a disabled endpoint');
  t.equal(m.value('lms_webhook_queue_depth'), 1, 'the queue depth counts active endpoints only (its alert is not about a pause)');

  time.set(time.ms + 29 * DAY);
  await event(w.cast.learner.id); // a younger one for A
  t.match(await w.app.purgeExpiredRows(), { ran: true, droppedDeliveries: 0 }, 'nothing is 30 days old yet');

  time.set(time.ms + DAY + 60_000);
  t.match(await w.app.purgeExpiredRows(), { ran: true, droppedDeliveries: 1 }, 'the oldest waited past the retention');
  m = await scrape(metrics.url);
  t.equal(m.value('lms_webhook_dropped_total'), 1, 'counted in the metrics');
  t.equal(m.value('lms_webhook_waiting_for_disabled'), 1, 'the younger one still waits');
  const left = await w.db.db.select().from(webhookDeliveries);
  t.equal(left.length, 2, "the younger one and B's (active endpoints' deliveries are never dropped)");
  const { rows } = await w.db.db.execute(sql`select count(*)::int as n from partner_events`);
  t.equal((rows[0] as { n: number }).n, 2, 'the dropped one’s event is purged with it');

  await w.db.db.update(webhookEndpoints).set({ status: 'active' }).where(eq(webhookEndpoints.id, endA.id));
  await w.app.deliverDueEvents();
  t.equal(a.got.length, 1, 'after enabling, the kept one arrives');
});
