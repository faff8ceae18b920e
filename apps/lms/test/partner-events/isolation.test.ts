import type { ServerResponse } from 'node:http';
import { partnerEvents, webhookAttempts } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import t from 'tap';
import { enqueuePartnerEvent } from '../../src/domain/partner-events/enqueue.js';
import { addEndpointRow, eventsWorld, receiver } from './fixtures.js';

// Issue 40, finding 8: a delivery round waited for its slowest send, so one partner whose endpoint
// hangs delayed every other partner's events by the whole timeout (2.6 s seen after a commit) and
// capped an instance at its concurrency per timeout (about 8 deliveries per 10 s for everyone).
// Now sends are not awaited as a round, one endpoint holds at most WEBHOOK_ENDPOINT_CONCURRENCY
// slots, and each send has its own deadline. Real receivers on port 0; the deliveries are jobs of
// the queue, run by the instance's delivery workers.

/** Waits until `done()` or `limitMs`; the caller asserts what it needs afterwards. */
async function until(done: () => boolean | Promise<boolean>, limitMs: number): Promise<void> {
  const started = performance.now();
  while (!(await done()) && performance.now() - started < limitMs) await new Promise((r) => setTimeout(r, 10));
}

/** A receiver that never answers until `release()`, which drops what it holds (those sends end at once) and answers from then on. */
async function hangingReceiver(t: Parameters<typeof receiver>[0]) {
  const held: ServerResponse[] = [];
  let holding = true;
  const rx = await receiver(t, (_n, _req, res) => (holding ? held.push(res) : res.end('ok')));
  const release = () => {
    holding = false;
    for (const res of held) res.socket?.destroy();
  };
  t.teardown(release);
  return { ...rx, held, release };
}

t.test("partner A's endpoint hangs: partner B's event arrives within 1.5 s of its commit", async (t) => {
  // A's sends would hang for 10 s (the default deadline) before the attempt gives up. The worker
  // looks every 50 ms here (WEBHOOK_POLL_MS, default 1 s): the bound is about not waiting for
  // another partner's send, not about the poll.
  const w = await eventsWorld(t, { pollMs: 50, settings: { timeoutMs: 10_000, leaseMs: 30_000 } });
  const a = await hangingReceiver(t);
  let arrivedAt = 0;
  const b = await receiver(t, (_n, _req, res) => {
    arrivedAt = Date.now();
    res.end('ok');
  });
  const endA = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await addEndpointRow(w.db.db, w.partnerB, b.url);
  await w.app.ready();

  t.equal((await w.enrol(w.course.id, w.cast.learner.cookie)).statusCode, 201);
  await until(() => a.got.length === 1, 5_000);
  t.equal(a.got.length, 1, "the worker is sending A's event, which never gets an answer");

  t.equal((await w.enrol(w.course.id, w.cast.otherLearner.cookie)).statusCode, 201);
  await until(() => b.got.length === 1, 15_000);
  t.equal(b.got.length, 1, "B's event arrived");
  // From the event's time, taken in its transaction before the commit: the figure can only be
  // larger than the time from the commit.
  const [eventB] = await w.db.db.select().from(partnerEvents).where(eq(partnerEvents.partnerId, w.partnerB));
  const latency = arrivedAt - eventB!.occurredAt.getTime();
  t.ok(latency <= 1_500, `B's event arrived ${latency} ms after its commit (bound 1500 ms)`);
  const attemptsA = await w.db.db.select().from(webhookAttempts).where(eq(webhookAttempts.endpointId, endA.id));
  t.equal(attemptsA.length, 0, "A's send is still hanging: B's did not wait for it");
  a.release();
});

t.test('an endpoint that hangs holds its share of the slots, never the instance', async (t) => {
  const w = await eventsWorld(t, {
    pollMs: 50,
    settings: { timeoutMs: 10_000, leaseMs: 30_000 },
    config: { WEBHOOK_CONCURRENCY: 8, WEBHOOK_ENDPOINT_CONCURRENCY: 2 },
  });
  const a = await hangingReceiver(t);
  const b = await receiver(t);
  const endA = await addEndpointRow(w.db.db, w.partnerA, a.url);
  await addEndpointRow(w.db.db, w.partnerB, b.url);
  await w.app.ready(); // the delivery workers start; each event's job is written with it
  // A backlog for the hanging endpoint first (the oldest due, so taken first), then 40 for B.
  const t0 = Date.now();
  const enrolled = () => ({ enrolledAt: new Date(t0).toISOString() });
  for (let i = 0; i < 10; i++) {
    await enqueuePartnerEvent(w.db.db, w.app.receipts.deliveries, {
      type: 'enrollment.created',
      userId: w.cast.learner.id,
      occurredAt: new Date(t0 + i),
      data: enrolled(),
    });
  }
  for (let i = 0; i < 40; i++) {
    await enqueuePartnerEvent(w.db.db, w.app.receipts.deliveries, {
      type: 'enrollment.created',
      userId: w.cast.otherLearner.id,
      occurredAt: new Date(t0 + 100 + i),
      data: enrolled(),
    });
  }

  const attemptsOfA = async () => (await w.db.db.select().from(webhookAttempts).where(eq(webhookAttempts.endpointId, endA.id))).length;
  // Until B has all 40, or one of A's hanging sends reached its deadline (10 s): whichever first.
  await until(async () => b.got.length === 40 || (await attemptsOfA()) > 0, 15_000);
  t.equal(b.got.length, 40, "all of B's 40 arrived");
  t.equal(await attemptsOfA(), 0, "while every send to A still hung: none of B's waited for A's deadline");
  t.equal(a.got.length, 2, 'A held 2 slots (WEBHOOK_ENDPOINT_CONCURRENCY) of 8, not every slot');
  t.equal(new Set(b.got.map((g) => g.headers['webhook-id'])).size, 40, 'each of B once');
  a.release();
});

t.test('a partner that sends its headers and then holds the body is cut at the deadline; its slot is free again', async (t) => {
  const w = await eventsWorld(t, { settings: { timeoutMs: 300, retryScheduleMs: [60_000] } });
  const held: ServerResponse[] = [];
  const a = await receiver(t, (_n, _req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('half an answer');
    held.push(res);
  });
  t.teardown(() => {
    for (const res of held) res.socket?.destroy();
  });
  await addEndpointRow(w.db.db, w.partnerA, a.url);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  t.equal(await w.app.deliverDueEvents(), 1, 'the round ends: the attempt did not wait for the body');
  const attempts = await w.db.db.select().from(webhookAttempts).orderBy(asc(webhookAttempts.id));
  t.match(attempts, [{ result: 'retry', excerpt: /timed out after 300 ms/ }], 'recorded as a timeout, to be retried');
});
