import { setImmediate as nextTurn } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { purgeExpiredIdempotencyKeys } from '../domain/idempotency.js';
import { expireOverduePurchases } from '../domain/learning/purchases.js';
import { dropExpiredWaiting, purgeDeliveryLog } from '../domain/partner-events/delivery.js';
import { purgeOldNotifications } from '../notifications/retention.js';
import { purgeUsedTokenIds } from '../domain/partner-tokens.js';
import { PURGE_BATCH_ROWS } from '../domain/purge.js';

export interface HousekeepingOptions {
  /**
   * Schedule the purge (default true): a cron job every HOUSEKEEPING_INTERVAL_MINUTES. Tests that
   * call purgeExpiredRows() themselves turn it off, so that no scheduled run meets theirs.
   */
  schedule?: boolean;
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

/** The cron expression of a purge every `minutes` minutes (1 to 60; 60 is hourly). */
export function housekeepingCron(minutes: number): string {
  return minutes >= 60 ? '0 * * * *' : `*/${minutes} * * * *`;
}

/**
 * Periodic deletion of what the database keeps only for a while, so those tables do not grow
 * without bound: spent token ids (needed until the token's exp + tolerance), Idempotency-Key
 * answers (24 h), the partner-event delivery log and finished events, and deliveries that waited
 * for a disabled endpoint (WEBHOOK_LOG_RETENTION_DAYS; those dropped are counted in the log and in
 * lms_webhook_dropped_total); and purchases past their payment deadline are closed as expired.
 * Times come from the injected clock. (Finished jobs of the queue are pg-boss's to delete:
 * JOBS_DELETE_AFTER_DAYS.)
 *
 * The purge is a job of the queue (jobs/, 'housekeeping.purge') sent by a cron schedule every
 * HOUSEKEEPING_INTERVAL_MINUTES (default 5): one job per occurrence whatever the number of
 * instances, run by one instance with workers. The run still holds a PostgreSQL advisory lock, so
 * a purge asked for directly (purgeExpiredRows(), the tests, a queue that gave a lost run to
 * another instance) never meets another: the second skips its turn. The rows go in statements of
 * at most `batchRows`, without RETURNING, with a turn of the event loop between two: after an
 * outage a backlog of hundreds of thousands of rows is many short statements, not one that runs
 * past the statement timeout and sends every deleted row back to be parsed while requests and
 * health checks wait. On close the run stops after its current batch and the queue waits for it.
 */
export default fp<HousekeepingOptions>(
  async (app, opts) => {
    const batchRows = opts.batchRows ?? PURGE_BATCH_ROWS;
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
        if (app.jobs.stopping.aborted) closing = true;
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

    await app.jobs.work('housekeeping.purge', {}, async () => {
      await app.purgeExpiredRows();
    });
    if (opts.schedule ?? true) await app.jobs.schedule('housekeeping.purge', housekeepingCron(app.config.HOUSEKEEPING_INTERVAL_MINUTES));

    // preClose: before the database plugin's onClose ends the connections.
    app.addHook('preClose', async () => {
      closing = true;
    });
  },
  { name: 'housekeeping', dependencies: ['database', 'metrics', 'jobs'] },
);
