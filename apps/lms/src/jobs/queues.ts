import type { Queue } from 'pg-boss';

// Every queue of the LMS, declared once: its name, what its jobs carry, how often a failed job is
// tried again, how long a run may take before it counts as lost. The queue (index.ts) creates
// them on start; nothing sends to or works on a queue that is not here.

/**
 * What a job of each queue carries (JSON). Tests add queues of their own by augmenting this
 * interface (`declare module '.../jobs/queues.js'`) and passing their definitions to the plugin.
 */
export interface JobData {
  /** Purge what the database keeps only for a while (plugins/housekeeping.ts); sent by its cron schedule. */
  'housekeeping.purge': Record<string, never>;
  /** Send one recorded notification (notifications/, contract.ts): its notifications.id. */
  'notification.send': { id: number };
  /** Look for the reminders due (notifications/reminders.ts); hourly. */
  'reminders.scan': Record<string, never>;
  /** The administrators' daily digest. */
  'digests.admin': Record<string, never>;
  /** The teachers' weekly digest. */
  'digests.teacher': Record<string, never>;
  /**
   * One attempt of one partner-event delivery (domain/partner-events/): its webhook_deliveries.id.
   * Written with the change that made the delivery due (the event, a retry, an enable, a replay).
   */
  'partner-events.deliver': { deliveryId: number };
  /** Gives a job to every due delivery that has none (an upgrade, a job that failed for good); every minute. */
  'partner-events.sweep': Record<string, never>;
}

export type QueueName = keyof JobData;

/**
 * How a queue's jobs are retried and timed out. retryLimit: tries after the first; retryDelay
 * (seconds) doubled each retry with jitter when retryBackoff, at most retryDelayMax;
 * expireInSeconds: how long one run may take. A run of a process that died (SIGKILL, lost host)
 * is given to another instance once that time is over, so it must be longer than any honest run
 * and as short as the queue's promise allows. Jobs of a queue are run by one instance at a time.
 */
export type QueueDefinition = Pick<Queue, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax' | 'expireInSeconds' | 'policy'>;

export const QUEUES = {
  // The purge stops between batches and runs again 5 minutes later: a lost run is not retried, and
  // 'singleton' lets one run be active at a time across instances (the advisory lock stays too).
  'housekeeping.purge': { retryLimit: 0, expireInSeconds: 15 * 60, policy: 'singleton' },
  // A message: retried for about a day (30 s, 1 min, … capped at 1 h), since a mail server or the
  // WhatsApp API can be down for hours; one send waits at most a couple of minutes.
  'notification.send': { retryLimit: 12, retryDelay: 30, retryBackoff: true, retryDelayMax: 3_600, expireInSeconds: 5 * 60 },
  // The scans record notifications (once per key), so a rerun sends nothing twice.
  'reminders.scan': {
    retryLimit: 3,
    retryDelay: 60,
    retryBackoff: true,
    retryDelayMax: 900,
    expireInSeconds: 15 * 60,
    policy: 'singleton',
  },
  'digests.admin': {
    retryLimit: 3,
    retryDelay: 300,
    retryBackoff: true,
    retryDelayMax: 3_600,
    expireInSeconds: 15 * 60,
    policy: 'singleton',
  },
  'digests.teacher': {
    retryLimit: 3,
    retryDelay: 300,
    retryBackoff: true,
    retryDelayMax: 3_600,
    expireInSeconds: 15 * 60,
    policy: 'singleton',
  },
  // Our own schedule (the webhook_deliveries row: backoff with jitter, Retry-After) decides when a
  // delivery is tried again: each attempt is a job of its own, sent with the attempt's record.
  // pg-boss's retries are for a run that could not record (the database did not answer) or was
  // lost (its process died): tried again after 5 s, 10 s, … up to 10 min. expireInSeconds is
  // set from WEBHOOK_TIMEOUT_MS when the queue is created (plugins/jobs.ts).
  'partner-events.deliver': { retryLimit: 20, retryDelay: 5, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 30 },
  'partner-events.sweep': { retryLimit: 0, expireInSeconds: 5 * 60, policy: 'singleton' },
} satisfies Partial<Record<QueueName, QueueDefinition>>;

/**
 * The cron schedules (UTC) of the queues sent on a timetable, for whoever registers their
 * worker to pass to `app.jobs.schedule()`. The housekeeping's comes from HOUSEKEEPING_INTERVAL_MINUTES.
 * Digests at 01:00 UTC: 08:00 in Jakarta (WIB), before the working day.
 */
export const SCHEDULES = {
  'reminders.scan': '0 * * * *',
  'digests.admin': '0 1 * * *',
  'digests.teacher': '0 1 * * 1',
  'partner-events.sweep': '* * * * *',
} as const satisfies Partial<Record<QueueName, string>>;
