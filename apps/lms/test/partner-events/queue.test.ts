import { type Db, JOBS_SCHEMA, webhookDeliveries } from '@lms/db';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { enqueuePartnerEvent } from '../../src/domain/partner-events/enqueue.js';
import { deliveryJobId, outboxOnly } from '../../src/domain/partner-events/queue.js';
import { buildTestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { makeCourse } from '../learning/enrolment-fixtures.js';
import { addEndpointRow, endpointRow, eventsWorld, fastSettings, receiver } from './fixtures.js';

// Issue 44: partner-event delivery runs on the job queue. Each attempt is a `partner-events.deliver`
// job written with what made the delivery due (the event, the previous attempt, an enable, a
// replay); the sweep gives a job to a due delivery that has none (events in flight when this
// version was deployed). The delivery workers of real apps run them here (no hand-driven rounds).

const jobsOf = async (db: Db) => {
  const { rows } = await db.execute(
    sql`select id::text, state, (data->>'deliveryId')::int as "deliveryId", group_id as "groupId"
        from ${sql.identifier(JOBS_SCHEMA)}.job where name = 'partner-events.deliver' order by created_on`,
  );
  return rows as Array<{ id: string; state: string; deliveryId: number; groupId: string }>;
};

const pendingOrDelivered = async (db: Db) =>
  (await db.select().from(webhookDeliveries)).map((d) => ({ id: d.id, status: d.status, attempts: d.attempts }));

t.test('an event is a job; a failed attempt writes the next one, due at the retry; delivered once', async (t) => {
  const w = await eventsWorld(t, { pollMs: 50, settings: { retryScheduleMs: [300] } });
  const a = await receiver(t, (n, _req, res) => {
    res.statusCode = n === 1 ? 500 : 200;
    res.end(n === 1 ? 'down' : 'ok');
  });
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.app.ready();
  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  await until(
    () => pendingOrDelivered(w.db.db),
    (v) => v[0]?.status === 'delivered',
    'delivered by the workers',
  );
  t.equal(a.got.length, 2, 'one failed attempt, one delivered');
  t.equal(a.got[0]!.headers['webhook-id'], a.got[1]!.headers['webhook-id'], 'the same webhook-id');
  const [delivery] = await w.db.db.select().from(webhookDeliveries);
  const jobs = await jobsOf(w.db.db);
  t.equal(jobs.length, 2, 'two jobs: the event, then the retry');
  t.ok(
    jobs.every((j) => j.deliveryId === delivery!.id && j.groupId === String(end.id) && j.state === 'completed'),
    "each the delivery's, grouped by its endpoint, completed",
  );
  t.equal(
    jobs[0]!.id,
    deliveryJobId({ id: delivery!.id, attempts: 0, nextAttemptAt: delivery!.createdAt }),
    "the first job's id is the delivery's",
  );
});

t.test('a job of a disabled endpoint sends nothing; enabling writes the jobs and they go out', async (t) => {
  const w = await eventsWorld(t, { pollMs: 50 });
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.app.ready();
  // Disabled by the super_admin page's form (the same domain call as `webhook disable`).
  const { setEndpointStatus } = await import('../../src/domain/partner-events/endpoints.js');
  await setEndpointStatus(w.db.db, w.app.receipts.deliveries, end.id, false, 'maintenance', new Date());
  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  t.same(await jobsOf(w.db.db), [], 'no job for a delivery that waits for a disabled endpoint');
  await new Promise((r) => setTimeout(r, 1_200));
  t.equal(a.got.length, 0, 'nothing sent');
  await setEndpointStatus(w.db.db, w.app.receipts.deliveries, end.id, true, '', new Date());
  // Recorded once the partner answered: wait for the record, then look at what arrived.
  await until(
    () => pendingOrDelivered(w.db.db),
    (v) => v[0]?.status === 'delivered',
    'delivered after the enable',
  );
  t.equal(a.got.length, 1, 'sent once');
  t.equal((await endpointRow(w.db.db, end.id)).status, 'active');
  t.match(await pendingOrDelivered(w.db.db), [{ status: 'delivered', attempts: 1 }]);
});

t.test('the sweep gives a job to deliveries written without one (an upgrade), once', async (t) => {
  const w = await eventsWorld(t, { pollMs: 50 });
  const a = await receiver(t);
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.app.ready();
  // Three events in the outbox with no job, due two minutes ago: what a version before the queue left.
  const old = new Date(Date.now() - 120_000);
  for (let i = 0; i < 3; i++) {
    await enqueuePartnerEvent(w.db.db, outboxOnly, {
      type: 'enrollment.created',
      userId: w.cast.learner.id,
      occurredAt: new Date(old.getTime() + i),
      data: { enrolledAt: old.toISOString() },
    });
  }
  // A fourth one just now, with its job: due for less than the sweep's grace.
  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  t.equal((await jobsOf(w.db.db)).length, 1, 'only the new one has a job');
  t.equal(await w.app.sweepDeliveries(), 3, 'the sweep gives the three a job');
  t.equal(await w.app.sweepDeliveries(), 0, 'and none twice while theirs wait or run');
  await until(
    () => pendingOrDelivered(w.db.db),
    (v) => v.length === 4 && v.every((d) => d.status === 'delivered'),
    'all four delivered',
  );
  t.equal(a.got.length, 4, 'four requests');
  t.equal(new Set(a.got.map((g) => g.headers['webhook-id'])).size, 4, 'each once');
  t.equal(await w.app.sweepDeliveries(), 0, 'nothing left to sweep');
});

t.test('two instances with their delivery workers deliver each event once', async (t) => {
  // A deadline far above the receiver's 20 ms: a send cut by a loaded machine would be sent again
  // (at least once, as promised); this test is about the two instances, not about deadlines.
  const settings = { timeoutMs: 10_000, leaseMs: 30_000 };
  const first = await eventsWorld(t, { pollMs: 50, settings });
  const { app: second } = await buildTestApp(t, {
    db: first.db,
    config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true },
    deps: { partnerEvents: { settings: fastSettings(settings), pollMs: 50 } },
  });
  const a = await receiver(t, (_n, _req, res) => setTimeout(() => res.end('ok'), 20));
  await addEndpointRow(first.db.db, first.partnerA, a.url);
  await Promise.all([first.app.ready(), second.ready()]);
  for (let i = 0; i < 12; i++) {
    const c = await makeCourse(first.db.db, first.cast.teacher, { enrollmentType: 'open' }, 1);
    t.equal((await first.enrol(c.id, first.cast.learner.cookie)).statusCode, 201);
  }
  await until(
    () => pendingOrDelivered(first.db.db),
    (v) => v.filter((d) => d.status === 'delivered').length === 12,
    'twelve delivered',
  );
  await new Promise((r) => setTimeout(r, 500));
  const ids = a.got.map((g) => g.headers['webhook-id']);
  t.equal(ids.length, 12, 'twelve requests');
  t.equal(new Set(ids).size, 12, 'each event once');
});

t.test('the same delivery attempt made due twice writes one job', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  const [d] = await w.db.db.select().from(webhookDeliveries);
  const due = { id: d!.id, endpointId: d!.endpointId, attempts: 0, nextAttemptAt: d!.nextAttemptAt };
  await w.db.db.transaction((tx) => w.app.receipts.deliveries(tx, [due, due]));
  await w.db.db.transaction((tx) => w.app.receipts.deliveries(tx, [due]));
  t.equal((await jobsOf(w.db.db)).length, 1, 'one job (the enrolment wrote it): its id is the delivery attempt');
});
