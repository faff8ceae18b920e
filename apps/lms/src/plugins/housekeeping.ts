import fp from 'fastify-plugin';
import { purgeExpiredIdempotencyKeys } from '../domain/idempotency.js';
import { expireOverduePurchases } from '../domain/learning/purchases.js';
import { purgeUsedTokenIds } from '../domain/partner-tokens.js';

export interface HousekeepingOptions {
  /** How often expired rows are purged (default 5 minutes). */
  intervalMs?: number;
}

export interface PurgeResult {
  usedTokenIds: number;
  idempotencyKeys: number;
  /** Purchases past their payment deadline, closed as expired. */
  expiredPurchases: number;
}

/** Purchases expired per run at most: a backlog is worked off over several runs, never in one long statement. */
const PURCHASE_EXPIRY_BATCH = 1_000;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Deletes the rows whose time is over (spent token ids past their token's exp, Idempotency-Keys
     * past 24 h) and closes the purchases past their payment deadline.
     */
    purgeExpiredRows(): Promise<PurgeResult>;
  }
}

/**
 * Periodic deletion of what the database keeps only for a while, so those tables do not grow
 * without bound: spent token ids (needed until the token's exp + tolerance) and Idempotency-Key
 * answers (24 h). Times come from the injected clock. Every instance runs it; the deletes are
 * idempotent, so several instances at once only repeat each other's work. The timer does not
 * keep the process alive and stops with the app (a purge under way is awaited).
 */
export default fp<HousekeepingOptions>(
  async (app, opts) => {
    const intervalMs = opts.intervalMs ?? 5 * 60_000;
    let running: Promise<unknown> | null = null;

    app.decorate('purgeExpiredRows', async () => {
      const now = app.clock();
      const usedTokenIds = await purgeUsedTokenIds(app.db, now);
      const idempotencyKeys = await purgeExpiredIdempotencyKeys(app.db, now);
      const expiredPurchases = await expireOverduePurchases(app.db, now, { limit: PURCHASE_EXPIRY_BATCH });
      if (usedTokenIds + idempotencyKeys + expiredPurchases > 0) {
        app.log.info({ usedTokenIds, idempotencyKeys, expiredPurchases }, 'housekeeping: expired rows purged');
      }
      return { usedTokenIds, idempotencyKeys, expiredPurchases };
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
      clearInterval(timer);
      await running;
    });
  },
  { name: 'housekeeping', dependencies: ['database'] },
);
