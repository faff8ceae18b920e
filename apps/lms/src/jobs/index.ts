import { type Db, type DbHandle, JOBS_SCHEMA } from '@lms/db';
import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss, type SendOptions } from 'pg-boss';
import type { JobData, QueueDefinition, QueueName } from './queues.js';
import { QUEUES } from './queues.js';
import { UnavailableError } from '../errors.js';

export type { JobData, QueueName } from './queues.js';
export { QUEUES, SCHEDULES } from './queues.js';

// The LMS's one job queue: pg-boss on the app's database (docs/architecture.md, "Jobs"). Jobs are
// rows of pg-boss's schema (created by migrate()); a job written in the caller's transaction
// exists exactly when the caller's change does. Workers claim a job with FOR UPDATE SKIP LOCKED,
// so one instance at a time runs it; a run that outlives its queue's expireInSeconds (its process
// was killed) is handed to another instance by pg-boss's supervision.

export interface JobsSettings {
  /** Run jobs on this instance (JOBS_WORKERS=on); off: only enqueue and schedule. */
  workers: boolean;
  /** An idle worker's poll (JOBS_POLL_SECONDS). */
  pollSeconds: number;
  /** Finished jobs kept this long (JOBS_DELETE_AFTER_DAYS). */
  deleteAfterSeconds: number;
  /** How long stop() waits for running jobs (JOBS_STOP_SECONDS). */
  stopSeconds: number;
  /** How often pg-boss looks for runs that expired (seconds; tests shorten it). Default 60. */
  superviseSeconds?: number;
  /** Queues besides QUEUES (tests), created on start like them. */
  extraQueues?: Record<string, QueueDefinition>;
  /** Changes to QUEUES' definitions taken from configuration (a run's expiry from a timeout). */
  queueOverrides?: Partial<Record<QueueName, Partial<QueueDefinition>>>;
}

/** A job as a handler sees it. */
export interface RunningJob<Q extends QueueName> {
  id: string;
  queue: Q;
  data: JobData[Q];
  /** 0 on the first run, then 1, 2, … */
  retryCount: number;
  /** Aborted when the run expired or the instance stops: stop what can be stopped. */
  signal: AbortSignal;
}

export interface WorkOptions {
  /**
   * Jobs of this queue run at once on this instance (default 4): one fetch takes up to this many.
   * 1 runs one job per poll (JOBS_POLL_SECONDS) at most.
   */
  concurrency?: number;
  /**
   * Jobs of one group (a job's `group.id`) run at once on this instance, at most. With it the
   * `concurrency` jobs are taken one at a time by as many workers, each free again when its own
   * job ends: a job that hangs holds its worker, never the others' (partner-event deliveries).
   */
  perGroup?: number;
  /** An idle worker's poll, in seconds, when this queue needs another than JOBS_POLL_SECONDS (at least 0.5). */
  pollSeconds?: number;
}

/** One job of a batch written by insertInTransaction. */
export interface JobToInsert<Q extends QueueName> {
  data: JobData[Q];
  /** A fixed id (a uuid): a job whose id exists already is not written again. */
  id?: string;
  startAfter?: Date;
  /** The group it counts against (WorkOptions.perGroup). */
  group?: string;
}

const DEFAULT_CONCURRENCY = 4;
/** pg-boss's start tries (backing off to 30 s between two): as good as for ever. */
const START_ATTEMPTS = 1_000_000;

/** Per queue: jobs waiting to run, the oldest one's age, failed jobs kept (see JOBS_DELETE_AFTER_DAYS). */
export interface QueueDepth {
  queue: string;
  waiting: number;
  oldestWaitingSeconds: number;
  failed: number;
}

export interface Jobs {
  /**
   * Writes the job in the caller's transaction: it exists if and only if the transaction commits.
   * Returns the job's id. Only once the app is ready (the queue started).
   */
  sendInTransaction<Q extends QueueName>(tx: Db, queue: Q, data: JobData[Q], options?: SendOptions): Promise<string | null>;
  /** Writes several jobs of one queue in the caller's transaction, in one statement (no-op for none). */
  insertInTransaction<Q extends QueueName>(tx: Db, queue: Q, jobs: JobToInsert<Q>[]): Promise<void>;
  /** Writes the job now, outside any transaction (a schedule-like start, a test). */
  send<Q extends QueueName>(queue: Q, data: JobData[Q], options?: SendOptions): Promise<string | null>;
  /**
   * Runs the queue's jobs on this instance with `handler` (nothing on an instance with
   * JOBS_WORKERS=off). A handler that throws fails the run: retried as the queue says. Called
   * before start() is over: applied at its end.
   */
  work<Q extends QueueName>(queue: Q, options: WorkOptions, handler: (job: RunningJob<Q>) => Promise<void>): Promise<void>;
  /**
   * Sends a job of the queue on a cron schedule (UTC); one job per occurrence whatever the
   * instances. Replaces an earlier one. Called before start() is over: applied at its end.
   */
  schedule(queue: QueueName, cron: string): Promise<void>;
  /** Whether this instance runs jobs (JOBS_WORKERS). */
  readonly workers: boolean;
  /** Aborted when stop() begins: a long handler stops at its next step (the housekeeping's batches). */
  readonly stopping: AbortSignal;
  /** Attempts that threw on this instance, per queue (read by the metrics). */
  failedAttempts(): ReadonlyMap<string, number>;
  /** The queues' depths, read from the database (the metrics' scrape). */
  depths(): Promise<QueueDepth[]>;
  /** The pg-boss instance, for what the API above does not cover (tests, the bench). */
  readonly boss: PgBoss;
  /** Starts pg-boss and creates the queues, then applies the work() and schedule() calls made before (once; later calls share it). */
  start(): Promise<void>;
  /**
   * Starts, and resolves once started or once the first try failed because the database does not
   * answer (the start goes on in the background); rejects when the start failed for another reason.
   */
  ready(): Promise<void>;
  /** Stops polling, waits up to stopSeconds for running jobs, then returns them to the queue. */
  stop(): Promise<void>;
}

/** `onError`: pg-boss's own trouble (no queue), or a run that threw (its queue). */
export function createJobs(handle: DbHandle, settings: JobsSettings, onError: (err: unknown, queue?: string) => void): Jobs {
  const boss = new PgBoss({
    ...handle.jobsConnection(),
    schema: JOBS_SCHEMA,
    // migrate() created the schema; a newer pg-boss migrates it on start (under its own lock).
    createSchema: false,
    supervise: settings.workers,
    schedule: settings.workers,
    superviseIntervalSeconds: settings.superviseSeconds ?? 60,
    monitorIntervalSeconds: settings.superviseSeconds ?? 60,
    application_name: 'lms-jobs',
  });
  boss.on('error', (err) => onError(err));
  const definitions: Record<string, QueueDefinition> = { ...QUEUES, ...settings.extraQueues };
  for (const [name, change] of Object.entries(settings.queueOverrides ?? {})) definitions[name] = { ...definitions[name], ...change };
  const failed = new Map<string, number>();
  const stopping = new AbortController();
  // work() and schedule() called before the start is over are applied at its end: plugins declare
  // their workers while they register, and the start runs in the app's onReady.
  let started = false;
  const pending: (() => Promise<unknown>)[] = [];
  const whenStarted = async (apply: () => Promise<unknown>): Promise<void> => {
    if (started) await apply();
    else pending.push(apply);
  };
  let startup: Promise<void> | null = null;

  // Whether the first try to start is over (started, or failed and trying again in the background).
  let firstTry: (() => void) | null = null;
  const firstTryOver = new Promise<void>((resolve) => {
    firstTry = resolve;
  });
  boss.on('warning', (warning: { message?: string; data?: { type?: string } }) => {
    if (warning?.data?.type !== 'start_retry') return;
    onError(new Error(`jobs: ${warning.message ?? 'start failed; trying again'}`));
    firstTry?.();
  });

  const start = (): Promise<void> => {
    startup ??= (async () => {
      // A database that does not answer yet (an outage at start) is tried again, backing off to
      // 30 s, for as long as it takes: the app is ready without the queue meanwhile (ready()), its
      // writes that need a job answer 503, and the queue starts when the database is back.
      await boss.start({ attempts: START_ATTEMPTS });
      // createQueue leaves an existing queue as it is: updateQueue applies a changed definition.
      const existing = new Set((await boss.getQueues()).map((q) => q.name));
      for (const [name, def] of Object.entries(definitions)) {
        const options = { ...def, deleteAfterSeconds: settings.deleteAfterSeconds };
        if (existing.has(name)) {
          const { policy: _fixed, ...changeable } = options;
          await boss.updateQueue(name, changeable);
        } else await boss.createQueue(name, options);
      }
      started = true;
      // A worker or schedule refused (an option pg-boss does not take) fails the start: the app
      // does not get ready without it.
      for (const apply of pending.splice(0)) await apply();
    })();
    startup.then(
      () => firstTry?.(),
      () => firstTry?.(),
    );
    return startup;
  };

  return {
    boss,
    workers: settings.workers,
    stopping: stopping.signal,
    start,
    async ready() {
      start().catch(() => {});
      await firstTryOver;
      // A start that failed for another reason than an unreachable database (or a worker refused)
      // is the app's to report.
      await Promise.race([startup, new Promise((resolve) => setTimeout(resolve, 0))]);
    },
    async stop() {
      stopping.abort();
      if (!startup) return;
      // A start still trying (the database did not answer) is cancelled by pg-boss's stop, which
      // waits for the try under way (bounded by the connection timeout); a started queue hands its
      // running jobs back after JOBS_STOP_SECONDS.
      if (!started) {
        await boss.stop({ graceful: false, close: true }).catch(() => {});
        await startup.catch(() => {});
        return;
      }
      await boss.stop({ graceful: true, timeout: settings.stopSeconds * 1000, close: true });
    },
    async sendInTransaction(tx, queue, data, options) {
      // Waiting for the start here could wait forever: on PGlite the caller's transaction holds
      // the one connection the start needs. Requests come once the app is ready (started).
      if (!started) throw new UnavailableError('The job queue is not running yet (its database did not answer); retry the request', 5);
      return boss.send(queue, data, { ...options, db: fromDrizzle(tx, sql) });
    },
    async insertInTransaction(tx, queue, jobs) {
      if (jobs.length === 0) return;
      if (!started) throw new UnavailableError('The job queue is not running yet (its database did not answer); retry the request', 5);
      await boss.insert(
        queue,
        jobs.map((j) => ({
          data: j.data,
          ...(j.id ? { id: j.id } : {}),
          ...(j.startAfter ? { startAfter: j.startAfter } : {}),
          ...(j.group ? { group: { id: j.group } } : {}),
        })),
        { db: fromDrizzle(tx, sql) },
      );
    },
    async send(queue, data, options) {
      await start();
      return boss.send(queue, data, options ?? {});
    },
    async work(queue, options, handler) {
      if (!settings.workers) return;
      const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
      const pollingIntervalSeconds = Math.max(0.5, options.pollSeconds ?? settings.pollSeconds);
      await whenStarted(() =>
        boss.work<JobData[typeof queue]>(
          queue,
          options.perGroup === undefined
            ? {
                // A fetch takes up to `concurrency` jobs, run at once and settled one by one; a full
                // fetch is followed by the next at once (a backlog drains without waiting for the poll).
                batchSize: concurrency,
                burstWhenBatchFull: true,
                perJobResults: true,
                pollingIntervalSeconds,
              }
            : {
                // `concurrency` workers of one job each; a worker that found a job looks again at once
                // while more are ready; a group at its share is left to the other workers.
                batchSize: 1,
                localConcurrency: concurrency,
                localGroupConcurrency: options.perGroup,
                // A backlog (more than one job ready, as pg-boss's queue statistics last said) is
                // fetched without waiting between two.
                burstWhenReadyExceeds: 1,
                perJobResults: true,
                pollingIntervalSeconds,
              },
          async (jobs) =>
            Promise.all(
              jobs.map(async (job) => {
                try {
                  await handler({ id: job.id, queue, data: job.data, retryCount: job.retryCount, signal: job.signal });
                  return { id: job.id, status: 'completed' as const };
                } catch (err) {
                  failed.set(queue, (failed.get(queue) ?? 0) + 1);
                  onError(err, queue);
                  return { id: job.id, status: 'failed' as const, output: { message: err instanceof Error ? err.message : String(err) } };
                }
              }),
            ),
        ),
      );
    },
    async schedule(queue, cron) {
      await whenStarted(() => boss.schedule(queue, cron, {}, { tz: 'UTC' }));
    },
    failedAttempts() {
      return failed;
    },
    async depths() {
      // One statement over pg-boss's job table (its partitions included): what is waiting now
      // (created or retry, due), the oldest of those by when it became due, and the failed ones kept.
      const result = await handle.db.execute<{ name: string; waiting: number; oldest: number | null; failed: number }>(
        sql`select name,
                   count(*) filter (where state < 'active' and not blocked and start_after <= now())::int as waiting,
                   extract(epoch from now() - min(start_after) filter (where state < 'active' and not blocked and start_after <= now()))::float8 as oldest,
                   count(*) filter (where state = 'failed')::int as failed
              from ${sql.identifier(JOBS_SCHEMA)}.job group by name`,
      );
      const byName = new Map(result.rows.map((r) => [r.name, r]));
      return Object.keys(definitions).map((queue) => {
        const row = byName.get(queue);
        return { queue, waiting: row?.waiting ?? 0, oldestWaitingSeconds: Math.max(0, row?.oldest ?? 0), failed: row?.failed ?? 0 };
      });
    },
  };
}
