import { createJobs, type QueueName } from '@lms/lms/jobs';
import { summarize } from '../load.js';
import type { Measurement } from '../report.js';
import { log } from '../options.js';
import type { PairSide } from '../runner.js';
import type { ScenarioContext } from './context.js';
import { enrolmentReceiptScenario } from './enrolment-receipt.js';

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
 * 15w: an enrolment through HTTP that records its receipt against the same without
 * (enrolment-receipt.ts, target ≥ 0.8).
 */
export async function jobScenarios(ctx: ScenarioContext) {
  const { run, filled } = ctx;
  const handle = filled.handle;
  const jobs = createJobs(
    handle,
    { workers: true, pollSeconds: 0.5, deleteAfterSeconds: 3_600, stopSeconds: 5, extraQueues: { [EMPTY]: { retryLimit: 0 } } },
    (err) => log(`15: pg-boss error: ${(err as Error).message}`),
  );
  await jobs.start();

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
  } finally {
    await jobs.boss.deleteQueuedJobs(EMPTY).catch(() => {});
    await jobs.stop();
  }
  await enrolmentReceiptScenario(ctx);
}
