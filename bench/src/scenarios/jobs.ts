import { enrollments, inTransaction, users } from '@lms/db';
import { createJobs, type QueueName } from '@lms/lms/jobs';
import { createNotify } from '@lms/lms/notify';
import { and, eq, sql } from 'drizzle-orm';
import { runLoop, summarize } from '../load.js';
import type { Measurement } from '../report.js';
import { log } from '../options.js';
import type { PairSide } from '../runner.js';
import type { ScenarioContext } from './context.js';

/** A queue of the bench's own (empty jobs), beside the LMS's. */
const EMPTY = 'bench.empty' as QueueName;
/** Jobs waiting before each measured run: more than one instance processes in a run. */
const BACKLOG = 20_000;
/** Jobs one fetch takes (jobs.work's default concurrency). */
const CONCURRENCY = 4;

/**
 * Rows 15: the job queue (pg-boss, apps/lms/src/jobs/). 15p: empty jobs processed per second by one
 * instance through `jobs.work()` (our wrapper: its handler, its failure count) against pg-boss's
 * own `work()` on the same instance and queue (batches of 4, the batch completed as one), each draining a backlog.
 * 15w: an enrolment whose transaction also records its receipt (a notification row and its send
 * job, as app.notify does) against the same
 * enrolment without (target ≥ 0.8).
 */
export async function jobScenarios(ctx: ScenarioContext) {
  const { run, filled } = ctx;
  const handle = filled.handle;
  const db = handle.db;
  const jobs = createJobs(
    handle,
    { workers: true, pollSeconds: 0.5, deleteAfterSeconds: 3_600, stopSeconds: 5, extraQueues: { [EMPTY]: { retryLimit: 0 } } },
    (err) => log(`15: pg-boss error: ${(err as Error).message}`),
  );
  await jobs.start();
  const [member] = await db.insert(users).values({ email: 'bench-jobs-member@bench.test', name: 'Member' }).returning({ id: users.id });
  const courseId = filled.detailCourseId;

  /** Drains a backlog for `seconds` with the given worker; jobs processed per second. */
  const draining = (key: string, startWorker: (count: () => void) => Promise<string | undefined>): PairSide => ({
    key,
    ready: async () => null,
    side: () => ({
      run: async (seconds): Promise<Measurement> => {
        await jobs.boss.deleteQueuedJobs(EMPTY);
        await jobs.boss.insert(
          EMPTY,
          Array.from({ length: BACKLOG }, () => ({ data: {} })),
        );
        const stamps: number[] = [];
        let last = performance.now();
        const started = last;
        const workerId = await startWorker(() => {
          const now = performance.now();
          stamps.push(now - last);
          last = now;
        });
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        await jobs.boss.offWork(EMPTY, { wait: true, ...(workerId ? { id: workerId } : {}) });
        return summarize(stamps, (performance.now() - started) / 1000, 0);
      },
    }),
  });

  let written = 0;
  const notify = createNotify({
    enqueue: async (tx, id) => {
      await jobs.sendInTransaction(tx, 'notification.send', { id });
    },
  });
  const enrolOnce = (withJob: boolean) => async () => {
    await inTransaction(db, async (tx) => {
      await tx.insert(enrollments).values({ userId: member.id, courseId }).onConflictDoNothing();
      // The receipt as the domain records it: its notification row and its send job, in the enrolment's transaction.
      written += 1;
      if (withJob)
        await notify(tx, {
          kind: 'enrolment.confirmed',
          userId: member.id,
          institutionId: null,
          subject: `bench-enrolment:${written}`,
          data: { courseTitle: 'Bench', courseUrl: 'http://127.0.0.1/bench' },
        });
    });
    // Undone so that the next write is an enrolment again (the same statement on both sides).
    await db.delete(enrollments).where(and(eq(enrollments.userId, member.id), eq(enrollments.courseId, courseId)));
  };
  const directSide = (key: string, op: () => Promise<void>): PairSide => ({
    key,
    ready: async () => {
      await op();
      return null;
    },
    side: () => ({ run: (seconds) => runLoop(op, 1, seconds) }),
  });

  try {
    await run.comparePaired(
      {
        id: '15p',
        scenario: `jobs processed per second by one instance (empty jobs, jobs.work(), ${CONCURRENCY} at a time)`,
        baselineName: "pg-boss's own work() on the same empty jobs",
        kind: 'throughput',
      },
      draining('jobs.work', async (count) => {
        await jobs.work(EMPTY, { concurrency: CONCURRENCY }, async () => count());
        return undefined;
      }),
      // pg-boss at its fastest for the same shape: batches of CONCURRENCY, the next fetch at once
      // after a full one, the batch completed as one.
      draining('pg-boss work', (count) =>
        jobs.boss.work(EMPTY, { batchSize: CONCURRENCY, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5 }, async (batch) => {
          for (const _ of batch) count();
        }),
      ),
    );
    await run.comparePaired(
      {
        id: '15w',
        scenario: 'an enrolment that records its receipt (notification + job) in its transaction (1 connection)',
        baselineName: 'the same enrolment without the job',
        kind: 'throughput',
        target: { minRatio: 0.8 },
      },
      directSide('enrolment + receipt', enrolOnce(true)),
      directSide('enrolment, no job', enrolOnce(false)),
    );
  } finally {
    await jobs.boss.deleteQueuedJobs(EMPTY).catch(() => {});
    await jobs.boss.deleteQueuedJobs('notification.send').catch(() => {});
    await jobs.stop();
    // The receipts' rows go with their member (cascade).
    await db.execute(sql`delete from users where email = 'bench-jobs-member@bench.test'`);
  }
}
