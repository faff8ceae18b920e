import { setImmediate as nextTurn } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { purgeExpiredIdempotencyKeys } from '../domain/idempotency.js';
import { expireOverduePurchases } from '../domain/learning/purchases.js';
import { dropExpiredWaiting, purgeDeliveryLog } from '../domain/partner-events/delivery.js';
import { purgeOldNotifications } from '../notifications/retention.js';
import { purgeUsedTokenIds } from '../domain/partner-tokens.js';
import { PURGE_BATCH_ROWS } from '../domain/purge.js';

export interface HousekeepingOptions {
  /** How often expired rows are purged (default 5 minutes). */
  intervalMs?: number;
  /** Rows one delete statement removes at most (default PURGE_BATCH_ROWS). */
  batchRows?: number;
  /**
   * Called after each batch with the rows it deleted (tests watch the purge's progress with it).
   * The purge goes on when it returns, on a later turn of the event loop.
   */
  onBatch?: (rows: number) => void | Promise<void>;
}

export type PurgeResult =
  /**
   * expiredPurchases: purchases past their payment deadline, closed as expired. droppedDeliveries:
   * partner-event deliveries that waited for a disabled endpoint longer than the retention;
   * webhookLogRows: delivery attempts and finished events past the retention.
   * notificationLogRows: notification rows past NOTIFICATION_LOG_RETENTION_DAYS.
   */
  | {
      ran: true;
      usedTokenIds: number;
      idempotencyKeys: number;
      expiredPurchases: number;
      droppedDeliveries: number;
      webhookLogRows: number;
      notificationLogRows: number;
      batches: number;
    }
  /** Another instance was purging: this one left it to that one. */
  | { ran: false };

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Deletes the rows whose time is over (spent token ids past their token's exp, Idempotency-Keys
     * past 24 h, the partner-event log and what waited for a disabled endpoint past
     * WEBHOOK_LOG_RETENTION_DAYS) and closes the purchases past their payment deadline.
     */
    purgeExpiredRows(): Promise<PurgeResult>;
  }
}

/** The advisory lock that lets one instance at a time purge (the demo seed's is 727_002, the migrations' 727_001). */
export const HOUSEKEEPING_LOCK_ID = 727_003;

/**
 * Periodic deletion of what the database keeps only for a while, so those tables do not grow
 * without bound: spent token ids (needed until the token's exp + tolerance), Idempotency-Key
 * answers (24 h), the partner-event delivery log and finished events, and deliveries that waited
 * for a disabled endpoint (WEBHOOK_LOG_RETENTION_DAYS; those dropped are counted in the log and in
 * lms_webhook_dropped_total); and purchases past their payment deadline are closed as expired.
 * Times come from the injected clock.
 *
 * Every instance has the timer, and one at a time purges: the run holds a PostgreSQL advisory
 * lock, and an instance that finds it taken skips its turn (N instances deleting the same rows at
 * once only made each other's statements wait and time out). The rows go in statements of at most
 * `batchRows`, without RETURNING, with a turn of the event loop between two: after an outage of
 * the timer a backlog of hundreds of thousands of rows is many short statements, not one that
 * runs past the statement timeout and sends every deleted row back to be parsed while requests
 * and health checks wait. The timer does not keep the process alive; on close the run stops after
 * its current batch and is awaited.
 */
export default fp<HousekeepingOptions>(
  async (app, opts) => {
    const intervalMs = opts.intervalMs ?? 5 * 60_000;
    const batchRows = opts.batchRows ?? PURGE_BATCH_ROWS;
    let running: Promise<unknown> | null = null;
    let closing = false;

    /** Deletes batch after batch until a batch comes back short (nothing left) or the app closes. */
    async function inBatches(deleteBatch: (limit: number) => Promise<number>): Promise<{ rows: number; batches: number }> {
      let rows = 0;
      let batches = 0;
      for (;;) {
        const deleted = await deleteBatch(batchRows);
        rows += deleted;
        batches += 1;
        await opts.onBatch?.(deleted);
        if (deleted < batchRows || closing) return { rows, batches };
        // Requests and health checks waiting for the event loop go first.
        await nextTurn();
      }
    }

    app.decorate('purgeExpiredRows', async (): Promise<PurgeResult> => {
      const outcome = await app.dbHandle.tryExclusiveLock(HOUSEKEEPING_LOCK_ID, async () => {
        const now = app.clock();
        const tokenIds = await inBatches((limit) => purgeUsedTokenIds(app.db, now, limit));
        const keys = closing ? { rows: 0, batches: 0 } : await inBatches((limit) => purgeExpiredIdempotencyKeys(app.db, now, limit));
        const purchases = closing ? { rows: 0, batches: 0 } : await inBatches((limit) => expireOverduePurchases(app.db, now, { limit }));
        // Partner events (docs/architecture.md, "Events wait for a disabled endpoint"): first what
        // waited too long for a disabled endpoint, so that its events go with the finished ones.
        const eventsBefore = new Date(now.getTime() - app.config.WEBHOOK_LOG_RETENTION_DAYS * 86_400_000);
        const droppedBy = new Map<number, number>();
        const dropped = closing
          ? { rows: 0, batches: 0 }
          : await inBatches(async (limit) => {
              let rows = 0;
              for (const [endpointId, n] of await dropExpiredWaiting(app.db, eventsBefore, limit)) {
                droppedBy.set(endpointId, (droppedBy.get(endpointId) ?? 0) + n);
                rows += n;
              }
              return rows;
            });
        if (dropped.rows > 0) {
          app.metrics.webhookDropped(dropped.rows);
          app.log.warn(
            { droppedByEndpoint: Object.fromEntries(droppedBy), retentionDays: app.config.WEBHOOK_LOG_RETENTION_DAYS },
            `partner events: ${dropped.rows} deliveries waited for a disabled endpoint longer than the retention and were dropped`,
          );
        }
        const webhookLog = closing ? { rows: 0, batches: 0 } : await inBatches((limit) => purgeDeliveryLog(app.db, eventsBefore, limit));
        const notificationsBefore = new Date(now.getTime() - app.config.NOTIFICATION_LOG_RETENTION_DAYS * 86_400_000);
        const notificationLog = closing
          ? { rows: 0, batches: 0 }
          : await inBatches((limit) => purgeOldNotifications(app.db, notificationsBefore, limit));
        return {
          ran: true as const,
          usedTokenIds: tokenIds.rows,
          idempotencyKeys: keys.rows,
          expiredPurchases: purchases.rows,
          droppedDeliveries: dropped.rows,
          webhookLogRows: webhookLog.rows,
          notificationLogRows: notificationLog.rows,
          batches: tokenIds.batches + keys.batches + purchases.batches + dropped.batches + webhookLog.batches + notificationLog.batches,
        };
      });
      if (!outcome.acquired) {
        app.log.debug('housekeeping: another instance is purging; skipping this turn');
        return { ran: false };
      }
      const result = outcome.result;
      if (
        result.usedTokenIds +
          result.idempotencyKeys +
          result.expiredPurchases +
          result.droppedDeliveries +
          result.webhookLogRows +
          result.notificationLogRows >
        0
      )
        app.log.info(result, 'housekeeping: expired rows purged');
      return result;
    });

    const timer = setInterval(() => {
      if (running) return;
      running = app
        .purgeExpiredRows()
        .catch((err: unknown) => app.log.warn({ err }, 'housekeeping: purge failed; the next run tries again'))
        .finally(() => {
          running = null;
        });
    }, intervalMs);
    timer.unref();

    // preClose: before the database plugin's onClose ends the connections.
    app.addHook('preClose', async () => {
      closing = true;
      clearInterval(timer);
      await running;
    });
  },
  { name: 'housekeeping', dependencies: ['database', 'metrics'] },
);
