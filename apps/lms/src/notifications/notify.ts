import { type Db, notificationSettings, notifications, users } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import type { NotificationChannel, Notify } from './contract.js';
import type { Receipts } from './receipts.js';

// Recording a notification (docs/operations.md, "Notifications"): in the transaction of what caused it, one row
// per channel the person gets, once per key; its sending is enqueued in that same transaction, so
// a rolled-back change sends nothing and a committed one is always sent.

/** Puts the sending of one notification row on the job queue, inside the caller's transaction. */
export type EnqueueNotification = (tx: Db, notificationId: number) => Promise<void>;

/** The channels a person gets: e-mail always (every account has an address); WhatsApp once the number is confirmed and they opted in. */
async function channelsOf(tx: Db, userId: string): Promise<NotificationChannel[]> {
  const [person] = await tx
    .select({
      email: users.email,
      phone: notificationSettings.whatsappPhone,
      confirmedAt: notificationSettings.phoneConfirmedAt,
      optIn: notificationSettings.whatsappOptIn,
    })
    .from(users)
    .leftJoin(notificationSettings, eq(notificationSettings.userId, users.id))
    .where(eq(users.id, userId));
  if (!person) return [];
  const channels: NotificationChannel[] = [];
  if (person.email) channels.push('email');
  if (person.phone && person.confirmedAt && person.optIn) channels.push('whatsapp');
  return channels;
}

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
    let firstId: number | null = null;
    let anyCreated = false;
    for (const channel of await channelsOf(tx, request.userId)) {
      const [inserted] = await tx
        .insert(notifications)
        .values({ key, userId: request.userId, institutionId: request.institutionId, kind: request.kind, channel, data: request.data })
        .onConflictDoNothing({ target: [notifications.key, notifications.channel] })
        .returning({ id: notifications.id });
      let outcome: { id: number; created: boolean };
      if (inserted) {
        await deps.enqueue(tx, inserted.id);
        outcome = { id: inserted.id, created: true };
      } else {
        const [existing] = await tx
          .select({ id: notifications.id })
          .from(notifications)
          .where(and(eq(notifications.key, key), eq(notifications.channel, channel)));
        outcome = { id: existing?.id ?? 0, created: false };
      }
      firstId ??= outcome.id;
      anyCreated ||= outcome.created;
    }
    return { id: firstId ?? 0, created: anyCreated };
  };
}

/**
 * The enqueue until the job queue is wired (app.ts): the row is recorded, pending, and nothing is
 * put on a queue. The merger replaces it with `(tx, id) => app.jobs.sendInTransaction(tx, 'notification.send', { id })`.
 */
export const recordOnlyEnqueue: EnqueueNotification = async () => {};

/**
 * The receipts of a deployment: its Notify with the queue's enqueue, and its PUBLIC_URL. Until the
 * job queue lands, app.ts and the admin CLI pass recordOnlyEnqueue (rows recorded, pending).
 */
export function deploymentReceipts(publicUrl: string, enqueue: EnqueueNotification): Receipts {
  return { notify: createNotify({ enqueue }), publicUrl };
}
