import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { enrollments, identities, inTransaction, partners, users, webhookEndpoints } from '@lms/db';
import {
  attemptDelivery,
  claimDue,
  type DeliverySettings,
  deliveryJobs,
  enqueuePartnerEvent,
  newWebhookSecret,
  outboxOnly,
  signatureHeader,
} from '@lms/lms/partner-events';
import { createJobs } from '@lms/lms/jobs';
import { and, eq, sql } from 'drizzle-orm';
import { runLoop } from '../load.js';
import { log } from '../options.js';
import type { PairSide } from '../runner.js';
import type { ScenarioContext } from './context.js';

const ISSUER = 'bench-events.example';
/** Events one delivery operation enqueues and then delivers. */
const BATCH = 8;

/** A load side that calls a function in a closed loop of `workers`. */
const directSide = (key: string, op: () => Promise<void>, workers: number): PairSide => ({
  key,
  ready: async () => {
    await op();
    return null;
  },
  side: () => ({ run: (seconds) => runLoop(op, workers, seconds) }),
});

/**
 * Rows 14: partner events. 14w: what queueing the event adds to the write that causes it, an
 * enrolment (insert + its event + its delivery's job in one transaction), for a member whose partner has an endpoint,
 * against the same enrolment of a member no partner listens for (the enqueue is then one lookup
 * that finds nobody). 14d: events delivered to a local receiver through the outbox (enqueue a
 * batch, claim it under a lease, send each signed, record each attempt), against the same signed
 * POSTs sent without the outbox: events per second = ops/s x BATCH.
 */
export async function partnerEventScenarios(ctx: ScenarioContext) {
  const { run, filled } = ctx;
  const db = filled.handle.db;
  const courseId = filled.detailCourseId;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const [partner] = await db.insert(partners).values({ issuer: ISSUER, name: 'Bench events' }).returning({ id: partners.id });
  const secret = newWebhookSecret();
  await db.insert(webhookEndpoints).values({ partnerId: partner.id, url, eventTypes: ['enrollment.created'], secret });
  const [member] = await db.insert(users).values({ email: 'bench-events-member@bench.test', name: 'Member' }).returning({ id: users.id });
  const [nobody] = await db.insert(users).values({ email: 'bench-events-nobody@bench.test', name: 'Nobody' }).returning({ id: users.id });
  await db.insert(identities).values({ issuer: ISSUER, membershipId: 'BENCH-1', userId: member.id, origin: 'operator' });
  log(`14: partner events to ${url}`);
  // The deliveries' jobs are written as the app writes them (enqueue only: nobody runs them here).
  const jobs = createJobs(filled.handle, { workers: false, pollSeconds: 2, deleteAfterSeconds: 3_600, stopSeconds: 1 }, (err) =>
    log(`14: pg-boss error: ${(err as Error).message}`),
  );
  await jobs.start();
  const send = deliveryJobs(() => jobs);

  const enrolOnce = (userId: string) => async () => {
    await inTransaction(db, async (tx) => {
      await tx.insert(enrollments).values({ userId, courseId }).onConflictDoNothing();
      const at = new Date();
      await enqueuePartnerEvent(tx, send, {
        type: 'enrollment.created',
        userId,
        occurredAt: at,
        courseId,
        data: { enrolledAt: at.toISOString() },
      });
    });
    // Undone so the next write is an enrolment again (the same statement on both sides).
    await db.delete(enrollments).where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)));
  };
  const settings: DeliverySettings = {
    retryScheduleMs: [5_000],
    jitter: 0.2,
    timeoutMs: 5_000,
    leaseMs: 15_000,
    disableAfterMs: 86_400_000,
    maxResponseBytes: 16 * 1024,
    maxRetryAfterMs: 3_600_000,
    policy: { allowHttp: true, allowPrivate: true },
    publicUrl: 'http://bench.test',
  };
  const body = JSON.stringify({ type: 'enrollment.created', timestamp: new Date().toISOString(), data: { course: { id: courseId } } });
  try {
    await run.comparePaired(
      {
        id: '14w',
        scenario: 'an enrolment, its partner event and the delivery job in one transaction (an endpoint listens; 1 connection)',
        baselineName: 'the same enrolment of a member no partner listens for',
        kind: 'throughput',
        target: { minRatio: 0.6 },
      },
      directSide('enrolment + event', enrolOnce(member.id), 1),
      directSide('enrolment, no listener', enrolOnce(nobody.id), 1),
    );
    await run.comparePaired(
      {
        id: '14d',
        scenario: `partner events delivered to a local receiver through the outbox (${BATCH} events an op: enqueue, claim, send signed, log)`,
        baselineName: `${BATCH} signed POSTs to the same receiver, no outbox`,
        kind: 'throughput',
      },
      directSide(
        'outbox delivery',
        async () => {
          await inTransaction(db, async (tx) => {
            for (let i = 0; i < BATCH; i++) {
              const at = new Date();
              await enqueuePartnerEvent(tx, outboxOnly, {
                type: 'enrollment.created',
                userId: member.id,
                occurredAt: at,
                courseId,
                data: { enrolledAt: at.toISOString() },
              });
            }
          });
          const claimed = await claimDue(db, new Date(), BATCH, settings.leaseMs);
          await Promise.all(claimed.map((c) => attemptDelivery(db, c, settings, () => new Date(), outboxOnly)));
        },
        2,
      ),
      directSide(
        'plain signed POSTs',
        async () => {
          await Promise.all(
            Array.from({ length: BATCH }, async (_, i) => {
              const id = `msg_bench${i}`;
              const ts = Math.floor(Date.now() / 1000);
              const res = await fetch(url, {
                method: 'POST',
                headers: {
                  'content-type': 'application/json',
                  'webhook-id': id,
                  'webhook-timestamp': String(ts),
                  'webhook-signature': signatureHeader([secret], id, ts, body),
                },
                body,
              });
              await res.arrayBuffer();
            }),
          );
        },
        2,
      ),
    );
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await db.delete(partners).where(eq(partners.id, partner.id));
    await jobs.boss.deleteQueuedJobs('partner-events.deliver');
    await jobs.stop();
    await db.execute(sql`delete from users where email in ('bench-events-member@bench.test', 'bench-events-nobody@bench.test')`);
  }
}
