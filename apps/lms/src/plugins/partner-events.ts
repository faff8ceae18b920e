import fp from 'fastify-plugin';
import {
  type AttemptResult,
  attemptDelivery,
  DEFAULT_RETRY_SCHEDULE_MS,
  type DeliverySettings,
} from '../domain/partner-events/delivery.js';
import type { OutboundPolicy } from '../domain/partner-events/outbound.js';
import { type Claimed, claimDue, claimOne, sweepDeliveries } from '../domain/partner-events/queue.js';
import { SCHEDULES } from '../jobs/index.js';

export interface PartnerEventsOptions {
  /** Overrides of the configured delivery settings (tests: a schedule in ms). */
  settings?: Partial<DeliverySettings>;
  /**
   * The delivery workers' poll when idle, in ms (default WEBHOOK_POLL_MS; at least 500). 0: this
   * instance runs no delivery job and no sweep (tests drive deliveries with deliverDueEvents).
   */
  pollMs?: number;
  /** Called after each attempt (metrics, tests). */
  onAttempt?: (result: AttemptResult) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * One round by hand: the due deliveries (at most WEBHOOK_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY
     * per endpoint) claimed, sent and awaited; resolves to how many were attempted. For tests and
     * tools: the service's deliveries are jobs.
     */
    deliverDueEvents(): Promise<number>;
    /** Gives a job to every due delivery of an active endpoint that has none (what the minutely sweep does); how many. */
    sweepDeliveries(): Promise<number>;
    partnerEventSettings: DeliverySettings;
    /** The outbound policy for partner URLs (webhooks and member checks). */
    outboundPolicy: OutboundPolicy;
  }
}

/** How long a due delivery may wait without a job before the sweep gives it one. */
const SWEEP_GRACE_MS = 60_000;
/** Deliveries one sweep gives jobs to, at most (the next minute takes the rest). */
const SWEEP_LIMIT = 5_000;

/**
 * Partner-event delivery on the job queue (docs/architecture.md, "Partner events";
 * domain/partner-events/queue.ts). Every instance with JOBS_WORKERS=on runs WEBHOOK_CONCURRENCY
 * delivery workers of one job each, at most WEBHOOK_ENDPOINT_CONCURRENCY on one endpoint: a send
 * that hangs holds its own worker until its deadline (WEBHOOK_TIMEOUT_MS), never the others' ("One
 * slow partner delays nobody"). A run lost with its process is given to another instance once
 * its expiry (2 × WEBHOOK_TIMEOUT_MS + 5 s) is over. On close no new job is taken and the sends
 * in flight are awaited (the job queue's stop). The log's retention is housekeeping's.
 */
export default fp<PartnerEventsOptions>(
  async (app, opts) => {
    const c = app.config;
    const policy: OutboundPolicy = { allowHttp: c.WEBHOOK_ALLOW_HTTP, allowPrivate: c.WEBHOOK_ALLOW_PRIVATE_ADDRESSES };
    const settings: DeliverySettings = {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE_MS ?? DEFAULT_RETRY_SCHEDULE_MS,
      jitter: 0.2,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      leaseMs: c.WEBHOOK_TIMEOUT_MS * 2 + 5_000,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
      maxResponseBytes: 16 * 1024,
      maxRetryAfterMs: 24 * 3_600_000,
      policy,
      publicUrl: c.PUBLIC_URL,
      ...opts.settings,
    };
    app.decorate('partnerEventSettings', settings);
    app.decorate('outboundPolicy', settings.policy);
    const send = app.receipts.deliveries;
    const perEndpoint = Math.min(c.WEBHOOK_ENDPOINT_CONCURRENCY, c.WEBHOOK_CONCURRENCY);
    const attempt = async (claimed: Claimed) => {
      try {
        const outcome = await attemptDelivery(app.db, claimed, settings, app.clock, send);
        app.metrics.webhookDelivery(outcome.result);
        opts.onAttempt?.(outcome.result);
      } catch (err) {
        app.log.warn({ err, deliveryId: claimed.deliveryId }, 'partner event delivery could not be recorded; tried again');
        throw err;
      }
    };

    app.decorate('deliverDueEvents', async () => {
      const claimed = await claimDue(app.db, app.clock(), c.WEBHOOK_CONCURRENCY, settings.leaseMs, { max: perEndpoint });
      await Promise.allSettled(claimed.map(attempt));
      return claimed.length;
    });
    app.decorate('sweepDeliveries', () => sweepDeliveries(app.db, send, app.clock(), SWEEP_GRACE_MS, SWEEP_LIMIT));

    const pollMs = opts.pollMs ?? c.WEBHOOK_POLL_MS;
    if (pollMs > 0) {
      await app.jobs.work(
        'partner-events.deliver',
        { concurrency: c.WEBHOOK_CONCURRENCY, perGroup: perEndpoint, pollSeconds: pollMs / 1000 },
        async (job) => {
          const claimed = await claimOne(app.db, job.data.deliveryId, app.clock(), settings.leaseMs);
          if (claimed) await attempt(claimed);
        },
      );
      await app.jobs.work('partner-events.sweep', { concurrency: 1 }, async () => {
        const n = await app.sweepDeliveries();
        if (n > 0) app.log.info({ deliveries: n }, 'partner events: due deliveries without a job were given one');
      });
      await app.jobs.schedule('partner-events.sweep', SCHEDULES['partner-events.sweep']);
    }
  },
  { name: 'partner-events', dependencies: ['database', 'metrics', 'jobs'] },
);
