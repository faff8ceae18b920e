import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueDepth } from './index.js';

/**
 * The job queue's metrics, read at scrape time: per queue, the jobs waiting to run and the oldest
 * one's age (from the database: the same figures on every instance), the failed jobs kept, and the
 * attempts that failed on this instance. The queue (app.jobs) is decorated after the metrics
 * plugin: until it is, nothing is reported.
 */
export function registerJobMetrics(app: FastifyInstance, registers: Registry[]): void {
  let reading: Promise<QueueDepth[]> | null = null;
  // One query per scrape for the three gauges (whichever collects first starts it).
  const depths = (): Promise<QueueDepth[]> => {
    if (!app.hasDecorator('jobs')) return Promise.resolve([]);
    reading ??= app.jobs
      .depths()
      .catch(() => [])
      .finally(() => setTimeout(() => (reading = null), 0));
    return reading;
  };
  const gauge = (name: string, help: string, read: (d: QueueDepth) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        this.reset();
        for (const d of await depths()) this.set({ queue: d.queue }, read(d));
      },
    });
  gauge('lms_jobs_waiting', 'Jobs of the queue due and waiting to be run (created or retry)', (d) => d.waiting);
  gauge(
    'lms_jobs_oldest_waiting_age_seconds',
    'How long the oldest job waiting to be run has been due (0 when none): workers stopped or too few',
    (d) => d.oldestWaitingSeconds,
  );
  gauge('lms_jobs_failed', 'Jobs that failed for good (retries spent) and are still kept (JOBS_DELETE_AFTER_DAYS)', (d) => d.failed);
  new Counter({
    name: 'lms_jobs_failed_attempts_total',
    help: "Runs of the queue's jobs that threw on this instance (each is retried while the queue's retry limit allows)",
    labelNames: ['queue'] as const,
    registers,
    collect() {
      this.reset();
      if (!app.hasDecorator('jobs')) return;
      for (const [queue, n] of app.jobs.failedAttempts()) this.inc({ queue }, n);
    },
  });
}
