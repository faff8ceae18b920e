import { type Db, notificationSettings, notifications, typedRows, users } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import type { NotificationChannel, Notify } from './contract.js';
import type { Receipts } from './receipts.js';
import type { SendDeliveries } from '../domain/partner-events/queue.js';

// Recording a notification (docs/operations.md, "Notifications"): in the transaction of what caused it, one row
// per channel the person gets, once per key; its sending is enqueued in that same transaction, so
// a rolled-back change sends nothing and a committed one is always sent.

/** Puts the sending of one notification row on the job queue, inside the caller's transaction. */
export type EnqueueNotification = (tx: Db, notificationId: number) => Promise<void>;

/** The channels a person gets: e-mail always (every account has an address); WhatsApp once the number is confirmed and they opted in. */
/** The key a request is recorded once under. */
export function notificationKey(kind: string, subject: string, period = ''): string {
  return `${kind}:${subject}:${period}`;
}

/**
 * The Notify of the contract: `enqueue` is required (the job queue's `sendInTransaction`), so a
 * notification is never recorded without its sending being arranged. Answers the first channel's
 * row (e-mail); `created` is true when any row is new. A person who no longer exists gets nothing
 * (id 0, not created).
 */
export function createNotify(deps: { enqueue: EnqueueNotification }): Notify {
  return async (tx, request) => {
    const key = notificationKey(request.kind, request.subject, request.period);
    // One statement records a row per channel the person gets (e-mail when they have an address,
    // WhatsApp once their number is confirmed and they opted in), skipping the rows the key
    // already has: a write that records its receipt pays one round trip here, and one for its job.
    const rows = await typedRows<{ id: number; channel: NotificationChannel }>(
      tx,
      sql`insert into ${notifications} (key, user_id, institution_id, kind, channel, data)
          select ${key}, u.id, ${request.institutionId}, ${request.kind}, c.channel, ${JSON.stringify(request.data)}::jsonb
          from ${users} u
          cross join (values ('email'), ('whatsapp')) as c(channel)
          left join ${notificationSettings} s on s.user_id = u.id
          where u.id = ${request.userId}
            and case c.channel
                  when 'email' then u.email <> ''
                  else s.whatsapp_phone is not null and s.phone_confirmed_at is not null and s.whatsapp_opt_in
                end
          on conflict (key, channel) do nothing
          returning id, channel`,
    );
    for (const row of rows) await deps.enqueue(tx, row.id);
    const email = rows.find((r) => r.channel === 'email') ?? rows[0];
    if (email) return { id: email.id, created: true };
    // Recorded before (a retry, a second instance) or no such person: the e-mail row's id, if any.
    const [existing] = await tx
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.key, key), eq(notifications.channel, 'email')));
    return { id: existing?.id ?? 0, created: false };
  };
}

/**
 * An enqueue for domain calls made outside an app (tests, the bench): the row is recorded,
 * pending, and nothing is put on a queue. The app's is `(tx, id) => app.jobs.sendInTransaction(tx, 'notification.send', { id })`.
 */
export const recordOnlyEnqueue: EnqueueNotification = async () => {};

/** The receipts of a deployment: its Notify with the queue's enqueue, its PUBLIC_URL, its deliveries' jobs. */
export function deploymentReceipts(publicUrl: string, enqueue: EnqueueNotification, deliveries: SendDeliveries): Receipts {
  return { notify: createNotify({ enqueue }), publicUrl, deliveries };
}
