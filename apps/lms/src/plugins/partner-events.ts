import fp from 'fastify-plugin';
import {
  attemptDelivery,
  claimDue,
  DEFAULT_RETRY_SCHEDULE_MS,
  type DeliverySettings,
  type AttemptResult,
} from '../domain/partner-events/delivery.js';
import type { OutboundPolicy } from '../domain/partner-events/outbound.js';

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
    /** Sends what is due now (one round, at most WEBHOOK_CONCURRENCY at once); resolves to how many were attempted. */
    deliverDueEvents(): Promise<number>;
    partnerEventSettings: DeliverySettings;
    /** The outbound policy for partner URLs (webhooks and member checks). */
    outboundPolicy: OutboundPolicy;
  }
}

/**
 * The in-process delivery worker of partner events (docs/architecture.md, "Partner events"). Every
 * instance runs it; rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so each delivery has
 * one sender at a time. The timer does not keep the process alive; on close no new round starts
 * and the sends in flight are awaited (each bounded by WEBHOOK_TIMEOUT_MS). The delivery log's
 * retention is housekeeping's (plugins/housekeeping.ts).
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
    const concurrency = c.WEBHOOK_CONCURRENCY;
    const inFlight = new Set<Promise<unknown>>();
    let closing = false;

    async function round(): Promise<number> {
      if (closing) return 0;
      const claimed = await claimDue(app.db, app.clock(), concurrency, settings.leaseMs);
      await Promise.all(
        claimed.map((d) => {
          const p = attemptDelivery(app.db, d, settings, app.clock)
            .then((o) => {
              app.metrics.webhookDelivery(o.result);
              opts.onAttempt?.(o.result);
            })
            .catch((err) => app.log.warn({ err, deliveryId: d.deliveryId }, 'partner event delivery could not be recorded'))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
          return p;
        }),
      );
      return claimed.length;
    }
    app.decorate('deliverDueEvents', round);

    const pollMs = opts.pollMs ?? c.WEBHOOK_POLL_MS;
    let timer: NodeJS.Timeout | null = null;
    let current: Promise<unknown> | null = null;
    if (pollMs > 0) {
      const tick = async () => {
        timer = null;
        try {
          // A full round means more may be due: go again at once.
          let n = concurrency;
          while (!closing && n >= concurrency) {
            current = round();
            n = (await current) as number;
          }
        } catch (err) {
          app.log.warn({ err }, 'partner event delivery round failed; retrying on the next tick');
        } finally {
          current = null;
          if (!closing) {
            timer = setTimeout(tick, pollMs);
            timer.unref();
          }
        }
      };
      app.addHook('onReady', async () => {
        timer = setTimeout(tick, 0);
        timer.unref();
      });
    }
    app.addHook('onClose', async () => {
      closing = true;
      if (timer) clearTimeout(timer);
      await current?.catch(() => {});
      await Promise.allSettled([...inFlight]);
    });
  },
  { name: 'partner-events', dependencies: ['database', 'metrics'] },
);
