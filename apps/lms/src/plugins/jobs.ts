import { isDatabaseUnavailable } from '@lms/db';
import fp from 'fastify-plugin';
import { createJobs, type Jobs, type JobsSettings } from '../jobs/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The job queue (jobs/index.ts): `sendInTransaction(tx, queue, data)` writes a job with the
     * caller's change; `work(queue, options, handler)` runs a queue's jobs here; `schedule(queue, cron)`.
     */
    jobs: Jobs;
  }
}

/** What tests change: pg-boss's supervision interval, queues of their own. */
export type JobsOptions = Pick<JobsSettings, 'superviseSeconds' | 'extraQueues'>;

/**
 * Starts the job queue before the plugins that send or work (registered after the database;
 * the app is ready once it has started) and stops it when the app closes: no new job is taken, the running ones get JOBS_STOP_SECONDS to
 * finish, then pg-boss hands them back to the queue (another instance, or this one's next start,
 * runs them). The stop runs in preClose, before the database plugin's onClose ends the
 * connections it needs.
 */
export default fp<JobsOptions>(
  async (app, opts) => {
    const config = app.config;
    const jobs = createJobs(
      app.dbHandle,
      {
        workers: config.JOBS_WORKERS === 'on',
        pollSeconds: config.JOBS_POLL_SECONDS,
        deleteAfterSeconds: Math.round(config.JOBS_DELETE_AFTER_DAYS * 86_400),
        stopSeconds: config.JOBS_STOP_SECONDS,
        superviseSeconds: config.JOBS_SUPERVISE_SECONDS,
        // A delivery's run: its send (WEBHOOK_TIMEOUT_MS), its record, with room: the lease its
        // delivery row is held by (plugins/partner-events.ts).
        queueOverrides: { 'partner-events.deliver': { expireInSeconds: Math.ceil((config.WEBHOOK_TIMEOUT_MS * 2 + 5_000) / 1000) } },
        ...opts,
      },
      (err, queue) => {
        // A run that threw is retried as its queue says; pg-boss's own trouble (a failed poll, a
        // lost connection) it tries again by itself.
        // A database that stopped answering is said once, by the database plugin: the polls that
        // fail meanwhile (every few seconds, per queue) would only flood the log.
        if (isDatabaseUnavailable(err)) app.log.debug({ err, queue }, 'jobs: the database does not answer; pg-boss tries again');
        else if (queue) app.log.warn({ err, queue }, `jobs: a run of ${queue} failed; retried while its retry limit allows`);
        else app.log.warn({ err }, 'jobs: queue error; pg-boss tries again');
      },
    );
    app.decorate('jobs', jobs);
    // Started when the app gets ready, after every plugin registered (their work() and schedule()
    // calls wait for it): an app whose start fails before that (a configuration refused by a
    // later plugin) leaves no queue running behind it. Ready once started, or once the first try
    // found the database down (the start goes on in the background, and a write that needs a job
    // answers 503 until it is over): an LMS started during a database outage serves its 503s and
    // recovers, as it did before the queue.
    app.addHook('onReady', async () => jobs.ready());
    app.addHook('preClose', async () => {
      await jobs.stop();
    });
  },
  { name: 'jobs', dependencies: ['database'] },
);
