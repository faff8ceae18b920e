import fp from 'fastify-plugin';
import { type AttemptResult, DEFAULT_RETRY_SCHEDULE_MS, type DeliverySettings } from '../domain/partner-events/delivery.js';
import type { OutboundPolicy } from '../domain/partner-events/outbound.js';
import { DeliveryWorker } from '../domain/partner-events/worker.js';

export interface PartnerEventsOptions {
  /** Overrides of the configured delivery settings (tests: a schedule in ms). */
  settings?: Partial<DeliverySettings>;
  /** Poll interval (default WEBHOOK_POLL_MS; 0: no worker, deliverDueEvents only when called). */
  pollMs?: number;
  /** Called after each attempt (metrics, tests). */
  onAttempt?: (result: AttemptResult) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * One look for due deliveries (at most WEBHOOK_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY per
     * endpoint), sent and awaited; resolves to how many were attempted. For tests and tools: the
     * worker itself never waits for a whole round.
     */
    deliverDueEvents(): Promise<number>;
    partnerEventSettings: DeliverySettings;
    /** The outbound policy for partner URLs (webhooks and member checks). */
    outboundPolicy: OutboundPolicy;
  }
}

/**
 * The in-process delivery worker of partner events (docs/architecture.md, "Partner events"). Every
 * instance runs it; rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so each delivery has
 * one sender at a time; sends are not awaited as a round, and one endpoint holds at most its share
 * of the slots ("One slow partner delays nobody"). The timer does not keep the process alive; on
 * close no new claim starts and the sends in flight are awaited (each bounded by WEBHOOK_TIMEOUT_MS).
 * The delivery log's retention is housekeeping's (plugins/housekeeping.ts).
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
    const worker = new DeliveryWorker({
      db: app.db,
      settings,
      clock: app.clock,
      concurrency: c.WEBHOOK_CONCURRENCY,
      perEndpoint: Math.min(c.WEBHOOK_ENDPOINT_CONCURRENCY, c.WEBHOOK_CONCURRENCY),
      onAttempt: (o) => {
        app.metrics.webhookDelivery(o.result);
        opts.onAttempt?.(o.result);
      },
      onError: (err, deliveryId) =>
        deliveryId === undefined
          ? app.log.warn({ err }, 'partner event delivery: claiming failed; the next look tries again')
          : app.log.warn({ err, deliveryId }, 'partner event delivery could not be recorded'),
    });
    app.decorate('deliverDueEvents', () => worker.round());

    const pollMs = opts.pollMs ?? c.WEBHOOK_POLL_MS;
    if (pollMs > 0) app.addHook('onReady', async () => worker.start(pollMs));
    app.addHook('onClose', async () => {
      await worker.stop();
    });
  },
  { name: 'partner-events', dependencies: ['database', 'metrics'] },
);
