import { affectedRows, type Db } from '@lms/db';
import { sql } from 'drizzle-orm';

// The notification log is kept NOTIFICATION_LOG_RETENTION_DAYS: what was sent to whom is personal
// data, needed for a while to answer "did I get it?" and no longer. Purged in batches by
// housekeeping (plugins/housekeeping.ts), like the partner events' delivery log.

/** Deletes up to `limit` notification rows created before `before`, whatever their state; returns how many. */
export async function purgeOldNotifications(db: Db, before: Date, limit: number): Promise<number> {
  // Raw: a bounded DELETE (a plain one has no LIMIT); the oldest first through notifications_created_idx.
  const result = await db.execute(sql`delete from notifications where id in
    (select id from notifications where created_at < ${before.toISOString()}::timestamptz order by created_at limit ${limit})`);
  return affectedRows(result);
}
