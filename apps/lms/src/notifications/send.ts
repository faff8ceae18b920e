import { type Db, institutionNotificationSettings, notificationPreferences, notificationSettings, notifications, users } from '@lms/db';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import {
  type EmailSender,
  type MessageLinks,
  type NotificationChannel,
  type NotificationData,
  type NotificationKind,
  type NotificationLocale,
  type OutgoingWhatsApp,
  PermanentDeliveryError,
  RECEIPT_KINDS,
  REMINDER_KINDS,
  type RenderedMessage,
  type SendResult,
  type WhatsAppSender,
} from './contract.js';
import { quietHoursEnd, unsubscribeUrl } from './links.js';

// The send job (docs/operations.md, "Notifications"): one notification row, sent once. The queue runs it and
// retries it on a thrown error with backoff; after its last retry the queue calls markFailed.
// A lease on the row (locked_until) keeps a second instance, or the same job run twice, from
// sending while one send is under way; a row recorded as sent is never sent again.

export type RenderNotification = <K extends NotificationKind>(
  kind: K,
  locale: NotificationLocale,
  data: NotificationData[K],
  links: MessageLinks,
  timeZone: string,
) => RenderedMessage | Promise<RenderedMessage>;

/** The WhatsApp template (name, language, parameters) of a kind; from the WhatsApp channel's part. */
export type RenderWhatsApp = <K extends NotificationKind>(
  kind: K,
  locale: NotificationLocale,
  data: NotificationData[K],
  links: MessageLinks,
  timeZone: string,
) => OutgoingWhatsApp['template'];

export interface SendDeps {
  db: Db;
  publicUrl: string;
  /** The unsubscribe links' key (links.ts linkSecret); null: no link. */
  linkSecret: string | null;
  /** NOTIFICATIONS_DISABLED_KINDS. */
  disabledKinds: readonly NotificationKind[];
  render: RenderNotification;
  /** Null: SMTP_URL is unset; e-mail rows end skipped, saying so. */
  email: EmailSender | null;
  whatsapp?: { sender: WhatsAppSender; render: RenderWhatsApp };
  now: () => Date;
  /** How long one send may hold the row before another may take it over (default 2 min). */
  leaseMs?: number;
}

export type SendOutcome =
  | { state: 'sent'; providerMessageId: string }
  | { state: 'skipped'; reason: string }
  /** A permanent delivery error: recorded, not retried. */
  | { state: 'failed'; reason: string }
  /** Held by quiet hours: the caller enqueues it again with startAfter = sendAfter. */
  | { state: 'later'; sendAfter: Date }
  /** Already sent, failed or skipped (a repeated job): nothing done. */
  | { state: 'done'; was: string };

/** The longest error text kept on a row. */
const MAX_ERROR = 500;

/** Sends one notification row; throws a TemporaryDeliveryError (or any unexpected error) for the queue to retry. */
export async function sendNotification(id: number, deps: SendDeps): Promise<SendOutcome> {
  const { db } = deps;
  const now = deps.now();
  const [row] = await db
    .select({
      n: notifications,
      email: users.email,
      name: users.name,
      locale: notificationSettings.locale,
      timeZone: notificationSettings.timeZone,
      quietStart: notificationSettings.quietStartMinute,
      quietEnd: notificationSettings.quietEndMinute,
      phone: notificationSettings.whatsappPhone,
      phoneConfirmedAt: notificationSettings.phoneConfirmedAt,
      optIn: notificationSettings.whatsappOptIn,
      institutionKindsOff: institutionNotificationSettings.disabledKinds,
      fromAddress: institutionNotificationSettings.fromAddress,
      personOff: sql<boolean>`exists (select 1 from ${notificationPreferences} p where p.user_id = ${notifications.userId} and p.kind = ${notifications.kind} and p.channel = ${notifications.channel} and not p.enabled)`,
    })
    .from(notifications)
    .innerJoin(users, eq(users.id, notifications.userId))
    .leftJoin(notificationSettings, eq(notificationSettings.userId, notifications.userId))
    .leftJoin(institutionNotificationSettings, eq(institutionNotificationSettings.institutionId, notifications.institutionId))
    .where(eq(notifications.id, id));
  // Gone with its person (cascade) or purged: nothing to send.
  if (!row) return { state: 'done', was: 'gone' };
  const n = row.n;
  if (n.state !== 'pending') return { state: 'done', was: n.state };
  const kind = n.kind as NotificationKind;
  const channel = n.channel as NotificationChannel;
  const receipt = RECEIPT_KINDS.has(kind);

  const skipReason =
    !receipt && deps.disabledKinds.includes(kind)
      ? 'switched off for the deployment'
      : !receipt && row.institutionKindsOff?.includes(kind)
        ? 'switched off by the institution'
        : !receipt && row.personOff
          ? 'switched off by the person'
          : channel === 'email' && !deps.email
            ? 'e-mail is not configured (SMTP_URL)'
            : channel === 'whatsapp' && !(row.phone && row.phoneConfirmedAt && row.optIn)
              ? 'no confirmed WhatsApp number with consent'
              : channel === 'whatsapp' && !deps.whatsapp
                ? 'WhatsApp is not configured'
                : null;
  if (skipReason) {
    await db
      .update(notifications)
      .set({ state: 'skipped', lastError: skipReason })
      .where(and(eq(notifications.id, id), eq(notifications.state, 'pending')));
    return { state: 'skipped', reason: skipReason };
  }

  const timeZone = row.timeZone ?? 'Asia/Jakarta';
  if (n.sendAfter && n.sendAfter > now) return { state: 'later', sendAfter: n.sendAfter };
  if (REMINDER_KINDS.has(kind) || channel === 'whatsapp') {
    const until = quietHoursEnd(now, timeZone, row.quietStart, row.quietEnd);
    if (until) {
      await db.update(notifications).set({ sendAfter: until }).where(eq(notifications.id, id));
      return { state: 'later', sendAfter: until };
    }
  }

  // The lease: taken only while pending and not held by a send under way elsewhere.
  const leaseUntil = new Date(now.getTime() + (deps.leaseMs ?? 120_000));
  const [claimed] = await db
    .update(notifications)
    .set({ lockedUntil: leaseUntil, attempts: sql`${notifications.attempts} + 1` })
    .where(
      and(
        eq(notifications.id, id),
        eq(notifications.state, 'pending'),
        or(isNull(notifications.lockedUntil), lt(notifications.lockedUntil, now)),
      ),
    )
    .returning({ id: notifications.id });
  if (!claimed) {
    const [again] = await db.select({ state: notifications.state }).from(notifications).where(eq(notifications.id, id));
    if (again && again.state !== 'pending') return { state: 'done', was: again.state };
    // Another send holds it: the queue tries again later; by then it is sent (done) or its lease ran out.
    throw new BusyError(`Notification ${id} is being sent by another worker`);
  }

  const locale = (row.locale ?? 'id') as NotificationLocale;
  const links: MessageLinks = {
    publicUrl: deps.publicUrl,
    settingsUrl: new URL('/account/notifications', deps.publicUrl).toString(),
    ...(!receipt && deps.linkSecret
      ? { unsubscribeUrl: unsubscribeUrl(deps.publicUrl, deps.linkSecret, { userId: n.userId, kind, channel }) }
      : {}),
  };
  const data = n.data as NotificationData[typeof kind];
  let result: SendResult;
  try {
    if (channel === 'email') {
      const message = await deps.render(kind, locale, data, links, timeZone);
      result = await (deps.email as EmailSender).send({
        to: row.email,
        toName: row.name,
        ...(row.fromAddress ? { from: row.fromAddress } : {}),
        kind,
        key: n.key,
        message,
        ...(links.unsubscribeUrl ? { unsubscribeUrl: links.unsubscribeUrl } : {}),
      });
    } else {
      const whatsapp = deps.whatsapp as NonNullable<SendDeps['whatsapp']>;
      const template = whatsapp.render(kind, locale, data, links, timeZone);
      result = await whatsapp.sender.send({ to: (row.phone as string).replace(/^\+/, ''), kind, key: n.key, template });
    }
  } catch (err) {
    const reason = describe(err);
    await db
      .update(notifications)
      .set(
        err instanceof PermanentDeliveryError
          ? { state: 'failed', lastError: reason, lockedUntil: null }
          : { lastError: reason, lockedUntil: null },
      )
      .where(and(eq(notifications.id, id), eq(notifications.state, 'pending')));
    // Permanent: the queue must not retry it; the row says why.
    if (err instanceof PermanentDeliveryError) return { state: 'failed', reason };
    throw err;
  }
  await db
    .update(notifications)
    .set({ state: 'sent', sentAt: deps.now(), providerMessageId: result.providerMessageId, lastError: null, lockedUntil: null })
    .where(eq(notifications.id, id));
  return { state: 'sent', providerMessageId: result.providerMessageId };
}

/** Another send holds the row's lease: retried by the queue like a temporary failure. */
export class BusyError extends Error {
  override readonly name = 'BusyError';
}

/** After the queue's last retry: the row ends failed with the reason (a row already sent stays sent). */
export async function markFailed(db: Db, id: number, reason: string): Promise<boolean> {
  const done = await db
    .update(notifications)
    .set({ state: 'failed', lastError: reason.slice(0, MAX_ERROR), lockedUntil: null })
    .where(and(eq(notifications.id, id), eq(notifications.state, 'pending')))
    .returning({ id: notifications.id });
  return done.length > 0;
}

function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, MAX_ERROR);
}
