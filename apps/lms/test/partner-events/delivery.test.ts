import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { webhookAttempts, webhookDeliveries } from '@lms/db';
import { asc, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { addEndpointRow, drain, endpointRow, eventsWorld, receiver } from './fixtures.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

interface Payload {
  type: string;
  data: { member: unknown; course: unknown; eventId: string; sequence: number };
  delivery: { ordered: boolean };
}

/** A port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

t.test('an enrolment is delivered, signed, to the partner of the member only', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  const b = await receiver(t);
  const endA = await addEndpointRow(w.db.db, w.partnerA, `${a.url}/hooks`);
  const endB = await addEndpointRow(w.db.db, w.partnerB, `${b.url}/hooks`);

  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1, 'partner A got one event');
  t.equal(b.got.length, 0, "partner B heard nothing of A's member");
  const [msg] = a.got;
  // Verified independently, with the reference library of Standard Webhooks.
  const payload = new Webhook(endA.secret).verify(msg!.body, msg!.headers as Record<string, string>) as Payload;
  t.equal(payload.type, 'enrollment.created');
  t.same(payload.data.member, { iss: 'a.example.org', membershipId: 'A-0001' });
  t.same(payload.data.course, { id: w.course.id, name: 'Etika Profesi' });
  t.equal(payload.data.eventId, msg!.headers['webhook-id']);
  t.type(payload.data.sequence, 'number');
  t.equal(payload.delivery.ordered, false, 'the payload says order is not promised');
  t.throws(() => new Webhook(endB.secret).verify(msg!.body, msg!.headers as Record<string, string>), 'another secret does not verify it');
  const tampered = msg!.body.replace('A-0001', 'A-0009');
  t.throws(() => new Webhook(endA.secret).verify(tampered, msg!.headers as Record<string, string>), 'a changed body does not verify');

  t.equal((await w.enrol(w.course.id, w.cast.otherLearner.cookie)).statusCode, 201);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1, "partner A heard nothing of B's member");
  t.equal(b.got.length, 1);
  const pb = new Webhook(endB.secret).verify(b.got[0]!.body, b.got[0]!.headers as Record<string, string>) as Payload;
  t.same(pb.data.member, { iss: 'b.example.org', membershipId: 'B-0002' });
  t.notMatch(b.got[0]!.body, /A-0001|a\.example\.org/, "B's event carries nothing of partner A");

  // A learner without any identity: no partner hears of them.
  t.equal((await w.enrol(w.course.id, w.cast.thirdLearner.cookie)).statusCode, 201);
  await drain(w.app, w.db.db);
  t.equal(a.got.length + b.got.length, 2);
  const { rows } = await w.db.db.execute(sql`select count(*)::int as n from partner_events where user_id = ${w.cast.thirdLearner.id}`);
  t.equal((rows[0] as { n: number }).n, 0, 'no event row either');
});

t.test('a member holding both identities: each partner gets its own membershipId', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  const b = await receiver(t);
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await addEndpointRow(w.db.db, w.partnerB, b.url);
  await w.db.db.execute(
    sql`insert into identities (issuer, membership_id, user_id, origin) values ('b.example.org', 'B-7777', ${w.cast.learner.id}, 'operator')`,
  );
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.same(JSON.parse(a.got[0]!.body).data.member, { iss: 'a.example.org', membershipId: 'A-0001' });
  t.same(JSON.parse(b.got[0]!.body).data.member, { iss: 'b.example.org', membershipId: 'B-7777' });
  t.notMatch(a.got[0]!.body, /B-7777/);
  t.notMatch(b.got[0]!.body, /A-0001/);
});

t.test('retries after 500, a timeout and a refused connection, on the schedule, same webhook-id', async (t) => {
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [60, 120, 240, 480], timeoutMs: 300 } });
  const hung: Array<() => void> = [];
  const a = await receiver(t, (n, _req, res) => {
    if (n === 1) {
      res.statusCode = 500;
      res.end('database down');
    } else if (n === 2) {
      hung.push(() => res.end('too late')); // never answers in time: the attempt times out
    } else res.end('ok');
  });
  t.teardown(() => {
    for (const h of hung) h();
  });
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  // Attempt 1: 500. Attempt 2: timeout.
  await w.app.deliverDueEvents();
  const wait = async () => {
    const [d] = await w.db.db.select().from(webhookDeliveries);
    await new Promise((r) => setTimeout(r, Math.max(0, d!.nextAttemptAt.getTime() - Date.now()) + 5));
  };
  await wait();
  await w.app.deliverDueEvents();
  // Attempt 3: connection refused (the endpoint moved to a port nobody listens on), then back.
  await w.db.db.execute(sql`update webhook_endpoints set url = ${`http://127.0.0.1:${await closedPort()}/`} where id = ${end.id}`);
  await wait();
  await w.app.deliverDueEvents();
  await w.db.db.execute(sql`update webhook_endpoints set url = ${a.url} where id = ${end.id}`);
  await wait();
  await w.app.deliverDueEvents();

  const attempts = await w.db.db.select().from(webhookAttempts).orderBy(asc(webhookAttempts.id));
  t.same(
    attempts.map((x) => [x.result, x.statusCode]),
    [
      ['retry', 500],
      ['retry', null],
      ['retry', null],
      ['delivered', 200],
    ],
  );
  t.match(attempts[0]!.excerpt, 'database down', 'the log keeps an excerpt of the answer');
  t.match(attempts[1]!.excerpt, /timed out/);
  t.match(attempts[2]!.excerpt, /ECONNREFUSED/);
  // The schedule: each retry waited at least its step (the log's attempt times).
  const gaps = attempts.slice(1).map((x, i) => x.attemptedAt.getTime() - attempts[i]!.attemptedAt.getTime());
  t.ok(gaps[0]! >= 60 && gaps[1]! >= 120 && gaps[2]! >= 240, `gaps ${gaps.join(', ')} ms follow 60, 120, 240`);
  const ids = new Set(a.got.map((g) => g.headers['webhook-id']));
  t.equal(ids.size, 1, 'every attempt carried the same webhook-id');
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.equal(d!.status, 'delivered');
  t.equal(d!.attempts, 4);
  t.equal((await endpointRow(w.db.db, end.id)).failingSince, null, 'a success clears the failing state');
});

t.test('the schedule runs out: failed, no more attempts', async (t) => {
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [30, 30] } });
  const a = await receiver(t, (_n, _req, res) => {
    res.statusCode = 502;
    res.end();
  });
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 3, 'first attempt + 2 retries');
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.equal(d!.status, 'failed');
  await new Promise((r) => setTimeout(r, 50));
  t.equal(await w.app.deliverDueEvents(), 0);
  t.equal(a.got.length, 3);
});

t.test('410 Gone stops and disables the endpoint', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t, (_n, _req, res) => {
    res.statusCode = 410;
    res.end('gone');
  });
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1, 'one attempt, no retry');
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.equal(d!.status, 'stopped');
  const row = await endpointRow(w.db.db, end.id);
  t.equal(row.status, 'disabled');
  t.match(row.disabledReason, /410/);
  // Later events of the member are not sent to a disabled endpoint (they wait for it to be enabled).
  const other = await (await import('../learning/enrolment-fixtures.js')).makeCourse(w.db.db, w.cast.teacher, { enrollmentType: 'open' });
  await w.enrol(other.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1);
});

t.test('Retry-After is honoured over a shorter schedule step', async (t) => {
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [50, 50] } });
  const a = await receiver(t, (n, _req, res) => {
    if (n === 1) {
      res.writeHead(503, { 'retry-after': '2' });
      res.end();
    } else res.end('ok');
  });
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await w.app.deliverDueEvents();
  const [att] = await w.db.db.select().from(webhookAttempts);
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.ok(d!.nextAttemptAt.getTime() - att!.attemptedAt.getTime() >= 2000, 'the next attempt is at least 2 s later, not 50 ms');
  t.equal(await w.app.deliverDueEvents(), 0, 'nothing is due before then');
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 2);
  t.equal((await w.db.db.select().from(webhookDeliveries))[0]!.status, 'delivered');
});

t.test('an endpoint failing for longer than the limit is disabled', async (t) => {
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [50, 1000, 1000], disableAfterMs: 500 } });
  const a = await receiver(t, (_n, _req, res) => {
    res.statusCode = 500;
    res.end();
  });
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await w.app.deliverDueEvents();
  await new Promise((r) => setTimeout(r, 60));
  await w.app.deliverDueEvents();
  t.equal(a.got.length, 2);
  const failing = await endpointRow(w.db.db, end.id);
  t.equal(failing.status, 'active', 'failing, not yet for long');
  t.ok(failing.failingSince, 'failing since the first failure');
  await drain(w.app, w.db.db);
  const row = await endpointRow(w.db.db, end.id);
  t.equal(row.status, 'disabled');
  t.match(row.disabledReason, /failed since/);
  t.equal(a.got.length, 3, 'disabled at the first failure past the limit');
  const { listEndpoints } = await import('../../src/domain/partner-events/endpoints.js');
  t.match((await listEndpoints(w.db.db))[0], { status: 'disabled', disabledReason: /failed since/ }, 'shown as disabled');
});

t.test('rotation: both signatures during the overlap, each verifies', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  const { rotateSecret } = await import('../../src/domain/partner-events/endpoints.js');
  const fresh = await rotateSecret(w.db.db, end.id, 3_600_000, new Date());
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  const msg = a.got[0]!;
  t.equal(String(msg.headers['webhook-signature']).split(' ').length, 2);
  t.ok(new Webhook(end.secret).verify(msg.body, msg.headers as Record<string, string>), 'the old secret verifies');
  t.ok(new Webhook(fresh!).verify(msg.body, msg.headers as Record<string, string>), 'the new secret verifies');
  // After the overlap only the new one signs.
  await w.db.db.execute(sql`update webhook_endpoints set previous_secret_until = now() - interval '1 second' where id = ${end.id}`);
  const { replay } = await import('../../src/domain/partner-events/delivery.js');
  t.equal(await replay(w.db.db, outboxOnly, { eventId: String(msg.headers['webhook-id']) }, new Date()), 1);
  await drain(w.app, w.db.db);
  const again = a.got[1]!;
  t.equal(again.headers['webhook-id'], msg.headers['webhook-id'], 'a replay keeps the webhook-id');
  t.equal(String(again.headers['webhook-signature']).split(' ').length, 1);
  t.throws(() => new Webhook(end.secret).verify(again.body, again.headers as Record<string, string>));
  t.ok(new Webhook(fresh!).verify(again.body, again.headers as Record<string, string>));
});

t.test('outbound safety: non-public addresses refused unless allowed', async (t) => {
  const w = await eventsWorld(t, { settings: { policy: { allowHttp: true, allowPrivate: false }, retryScheduleMs: [30] } });
  const a = await receiver(t);
  const { addEndpoint } = await import('../../src/domain/partner-events/endpoints.js');
  for (const url of [
    'http://127.0.0.1/x',
    'http://10.1.2.3/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[::ffff:10.0.0.1]/',
  ]) {
    await t.rejects(
      addEndpoint(w.db.db, { issuer: 'a.example.org', url, eventTypes: ['enrollment.created'] }, w.app.outboundPolicy),
      { message: /not a public address/ },
      url,
    );
  }
  await t.rejects(
    addEndpoint(
      w.db.db,
      { issuer: 'a.example.org', url: 'http://partner.example.org/', eventTypes: ['enrollment.created'] },
      { allowHttp: false, allowPrivate: false },
    ),
    /must be https/,
  );
  // A name that resolves to the loopback passes the form check but is refused when connecting.
  const port = new URL(a.url).port;
  await addEndpointRow(w.db.db, w.partnerA, `http://localhost:${port}/hooks`);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 0, 'nothing reached the loopback receiver');
  const attempts = await w.db.db.select().from(webhookAttempts);
  t.ok(attempts.length >= 1);
  t.ok(attempts.every((x) => x.result === 'blocked' || x.result === 'failed'));
  t.match(attempts[0]!.excerpt, /not a public address/);
});

t.test('two instances on one database deliver each event once', async (t) => {
  // The lease is what keeps them apart while a send is in flight; a lease that runs out (a send
  // held past it on a machine under load) means a second send, as promised (at least once). This
  // test is about SKIP LOCKED and the lease, not about their running out: a lease of a minute.
  const lease = { leaseMs: 60_000 };
  const first = await eventsWorld(t, { settings: lease });
  const { buildTestApp } = await import('../helpers/app.js');
  const { fastSettings } = await import('./fixtures.js');
  const { app: second } = await buildTestApp(t, {
    db: first.db,
    config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true },
    deps: { partnerEvents: { settings: fastSettings(lease), pollMs: 0 } },
  });
  const a = await receiver(t, (_n, _req, res) => setTimeout(() => res.end('ok'), 20));
  await addEndpointRow(first.db.db, first.partnerA, a.url);
  const { makeCourse } = await import('../learning/enrolment-fixtures.js');
  for (let i = 0; i < 12; i++) {
    const c = await makeCourse(first.db.db, first.cast.teacher, { enrollmentType: 'open' }, 1);
    t.equal((await first.enrol(c.id, first.cast.learner.cookie)).statusCode, 201);
  }
  for (let i = 0; i < 6; i++) await Promise.all([first.app.deliverDueEvents(), second.deliverDueEvents()]);
  const ids = a.got.map((g) => g.headers['webhook-id']);
  t.equal(ids.length, 12, 'twelve requests');
  t.equal(new Set(ids).size, 12, 'each event once');
  const { rows } = await first.db.db.execute(sql`select count(*)::int as n from webhook_deliveries where status = 'delivered'`);
  t.equal((rows[0] as { n: number }).n, 12);
});

t.test('metrics: deliveries by result, queue depth, age of the oldest undelivered', async (t) => {
  const { scrape } = await import('../helpers/metrics.js');
  const w = await eventsWorld(t, { settings: { retryScheduleMs: [60_000] } });
  const metrics = await w.app.metrics.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => metrics.close());
  const ok = await receiver(t);
  const down = await receiver(t, (_n, _req, res) => {
    res.statusCode = 503;
    res.end();
  });
  await addEndpointRow(w.db.db, w.partnerA, ok.url);
  await addEndpointRow(w.db.db, w.partnerB, down.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await w.enrol(w.course.id, w.cast.otherLearner.cookie);
  const before = await scrape(metrics.url);
  t.equal(before.value('lms_webhook_queue_depth'), 2, 'two waiting');
  await w.app.deliverDueEvents();
  const after = await scrape(metrics.url);
  t.equal(after.value('lms_webhook_deliveries_total', { result: 'delivered' }), 1);
  t.equal(after.value('lms_webhook_deliveries_total', { result: 'retry' }), 1);
  t.equal(after.value('lms_webhook_queue_depth'), 1, "B's waits for its retry in a minute");
  t.ok(after.value('lms_webhook_oldest_pending_age_seconds') >= 0);
  t.ok(after.has('lms_webhook_oldest_pending_age_seconds'));
});

t.test('closing the app waits for the sends in flight; the attempt is recorded', async (t) => {
  const { buildTestApp } = await import('../helpers/app.js');
  const { createTestDb } = await import('@lms/db/testing');
  const { testDatabaseUrl } = await import('../helpers/database.js');
  const shared = await createTestDb(testDatabaseUrl);
  t.teardown(() => shared.destroy());
  const w = await eventsWorld(t, { db: shared, settings: { timeoutMs: 5_000 } });
  let answer: (() => void) | null = null;
  const slow = await receiver(t, (_n, _req, res) => {
    answer = () => res.end('ok');
  });
  await addEndpointRow(w.db.db, w.partnerA, slow.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  // A second instance on the same database with its worker on; closed while its send waits.
  const { fastSettings } = await import('./fixtures.js');
  const { app: worker } = await buildTestApp(t, {
    db: shared,
    config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true },
    deps: { partnerEvents: { settings: fastSettings({ timeoutMs: 5_000 }), pollMs: 20 } },
  });
  await worker.ready();
  while (slow.got.length === 0) await new Promise((r) => setTimeout(r, 10));
  let closed = false;
  const closing = worker.close().then(() => {
    closed = true;
  });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(closed, false, 'close waits for the send in flight');
  answer!();
  await closing;
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.equal(d!.status, 'delivered', 'the answer was recorded before the app closed');
});

t.test('retention: attempts and finished events older than the retention are purged', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  const { purgeDeliveryLog } = await import('../../src/domain/partner-events/delivery.js');
  t.equal(await purgeDeliveryLog(w.db.db, new Date(Date.now() - 86_400_000), 100), 0, 'nothing older than a day');
  const other = await (await import('../learning/enrolment-fixtures.js')).makeCourse(w.db.db, w.cast.teacher, { enrollmentType: 'open' });
  // An event while the endpoint is disabled: its delivery waits (pending).
  await w.db.db.execute(sql`update webhook_endpoints set status = 'disabled'`);
  await w.enrol(other.id, w.cast.learner.cookie);
  const count = async (table: string) =>
    ((await w.db.db.execute(sql`select count(*)::int as n from ${sql.raw(table)}`)).rows[0] as { n: number }).n;
  t.same([await count('partner_events'), await count('webhook_attempts')], [2, 1], 'one delivered (with its attempt), one waiting');
  t.ok((await purgeDeliveryLog(w.db.db, new Date(Date.now() + 60_000), 100)) > 0);
  t.equal(await count('webhook_attempts'), 0, 'the attempt is purged');
  t.equal(await count('partner_events'), 1, 'the undelivered event is kept');
  t.equal(await count('webhook_deliveries'), 1, 'and its delivery');
});
