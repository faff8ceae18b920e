import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { type Db, institutionNotificationSettings, notificationPreferences, notificationSettings, notifications, users } from '@lms/db';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { NotificationChannel, NotificationKind, NotificationLocale, WhatsAppSender } from './contract.js';
import { RECEIPT_KINDS } from './contract.js';

// A person's notification settings (/account/notifications) and an institution's
// (/dashboard/institution/notifications), and the per-person delivery log, read and written here.

export interface PersonSettings {
  locale: NotificationLocale;
  timeZone: string;
  quietStartMinute: number | null;
  quietEndMinute: number | null;
  whatsappPhone: string | null;
  phoneConfirmed: boolean;
  whatsappOptIn: boolean;
  /** `${kind} ${channel}` switched off. */
  off: Set<string>;
}

export const DEFAULT_TIME_ZONE = 'Asia/Jakarta';

export async function readPersonSettings(db: Db, userId: string): Promise<PersonSettings> {
  const [row] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, userId));
  const prefs = await db
    .select({ kind: notificationPreferences.kind, channel: notificationPreferences.channel })
    .from(notificationPreferences)
    .where(and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.enabled, false)));
  return {
    locale: (row?.locale ?? 'id') as NotificationLocale,
    timeZone: row?.timeZone ?? DEFAULT_TIME_ZONE,
    quietStartMinute: row?.quietStartMinute ?? null,
    quietEndMinute: row?.quietEndMinute ?? null,
    whatsappPhone: row?.whatsappPhone ?? null,
    phoneConfirmed: row?.phoneConfirmedAt != null,
    whatsappOptIn: row?.whatsappOptIn ?? false,
    off: new Set(prefs.map((p) => `${p.kind} ${p.channel}`)),
  };
}

/** Switches one kind on one channel on or off for a person; a receipt stays on (false: refused). */
export async function setPreference(
  db: Db,
  userId: string,
  kind: NotificationKind,
  channel: NotificationChannel,
  enabled: boolean,
): Promise<boolean> {
  if (RECEIPT_KINDS.has(kind)) return false;
  await db
    .insert(notificationPreferences)
    .values({ userId, kind, channel, enabled })
    .onConflictDoUpdate({
      target: [notificationPreferences.userId, notificationPreferences.kind, notificationPreferences.channel],
      set: { enabled, updatedAt: sql`now()` },
    });
  return true;
}

/** Writes the language, time zone, quiet hours and WhatsApp consent; a new number is unconfirmed until its code is typed. */
export async function writePersonSettings(
  db: Db,
  userId: string,
  values: {
    locale: NotificationLocale;
    timeZone: string;
    quietStartMinute: number | null;
    quietEndMinute: number | null;
    whatsappPhone: string | null;
    whatsappOptIn: boolean;
  },
): Promise<void> {
  const numberChanged = sql`${notificationSettings.whatsappPhone} is distinct from excluded.whatsapp_phone`;
  await db
    .insert(notificationSettings)
    .values({ userId, ...values })
    .onConflictDoUpdate({
      target: notificationSettings.userId,
      set: {
        locale: values.locale,
        timeZone: values.timeZone,
        quietStartMinute: values.quietStartMinute,
        quietEndMinute: values.quietEndMinute,
        whatsappOptIn: values.whatsappOptIn,
        whatsappPhone: values.whatsappPhone,
        phoneConfirmedAt: sql`case when ${numberChanged} then null else ${notificationSettings.phoneConfirmedAt} end`,
        confirmationCodeHash: sql`case when ${numberChanged} then null else ${notificationSettings.confirmationCodeHash} end`,
        updatedAt: sql`now()`,
      },
    });
}

/** How many wrong codes a number's confirmation allows, and how long a code lives. */
export const CONFIRMATION_TRIES = 5;
export const CONFIRMATION_TTL_MS = 10 * 60_000;

const hashCode = (userId: string, code: string) => createHash('sha256').update(`${userId}:${code}`).digest('hex');

/**
 * Sends a new six-digit code to the person's WhatsApp number (the pre-approved template
 * `phone_confirmation`), keeping only its hash; the tries start again. False: no number to confirm.
 */
export async function sendConfirmationCode(db: Db, sender: WhatsAppSender, userId: string, now: Date): Promise<boolean> {
  const settings = await readPersonSettings(db, userId);
  if (!settings.whatsappPhone || settings.phoneConfirmed) return false;
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await db
    .update(notificationSettings)
    .set({
      confirmationCodeHash: hashCode(userId, code),
      confirmationCodeExpiresAt: new Date(now.getTime() + CONFIRMATION_TTL_MS),
      confirmationTries: 0,
    })
    .where(eq(notificationSettings.userId, userId));
  await sender.send({
    to: settings.whatsappPhone.replace(/^\+/, ''),
    kind: 'enrolment.confirmed',
    key: `phone-confirmation:${userId}:${now.toISOString()}`,
    template: { name: 'phone_confirmation', language: settings.locale, parameters: [code] },
  });
  return true;
}

export type ConfirmOutcome = 'confirmed' | 'wrong' | 'expired' | 'tooManyTries' | 'noCode';

/** Checks a typed code: right, within its 10 minutes and its 5 tries, confirms the number. */
export async function confirmPhone(db: Db, userId: string, code: string, now: Date): Promise<ConfirmOutcome> {
  // One statement counts the try, so concurrent guesses cannot pass the five.
  const [row] = await db
    .update(notificationSettings)
    .set({ confirmationTries: sql`${notificationSettings.confirmationTries} + 1` })
    .where(and(eq(notificationSettings.userId, userId), sql`${notificationSettings.confirmationCodeHash} is not null`))
    .returning({
      hash: notificationSettings.confirmationCodeHash,
      expiresAt: notificationSettings.confirmationCodeExpiresAt,
      tries: notificationSettings.confirmationTries,
    });
  if (!row?.hash) return 'noCode';
  if (row.tries > CONFIRMATION_TRIES) return 'tooManyTries';
  if (!row.expiresAt || row.expiresAt <= now) return 'expired';
  const given = Buffer.from(hashCode(userId, code.trim()), 'hex');
  if (!timingSafeEqual(given, Buffer.from(row.hash, 'hex'))) return row.tries >= CONFIRMATION_TRIES ? 'tooManyTries' : 'wrong';
  await db
    .update(notificationSettings)
    .set({ phoneConfirmedAt: now, confirmationCodeHash: null, confirmationCodeExpiresAt: null, confirmationTries: 0 })
    .where(eq(notificationSettings.userId, userId));
  return 'confirmed';
}

export interface InstitutionNotificationSettings {
  disabledKinds: NotificationKind[];
  fromAddress: string | null;
}

export async function readInstitutionNotificationSettings(db: Db, institutionId: number): Promise<InstitutionNotificationSettings> {
  const [row] = await db
    .select()
    .from(institutionNotificationSettings)
    .where(eq(institutionNotificationSettings.institutionId, institutionId));
  return { disabledKinds: (row?.disabledKinds ?? []) as NotificationKind[], fromAddress: row?.fromAddress ?? null };
}

/** Receipts are never among an institution's kinds off (they are dropped here). */
export async function writeInstitutionNotificationSettings(
  db: Db,
  institutionId: number,
  values: InstitutionNotificationSettings,
): Promise<void> {
  const disabledKinds = values.disabledKinds.filter((k) => !RECEIPT_KINDS.has(k));
  await db
    .insert(institutionNotificationSettings)
    .values({ institutionId, disabledKinds, fromAddress: values.fromAddress })
    .onConflictDoUpdate({
      target: institutionNotificationSettings.institutionId,
      set: { disabledKinds, fromAddress: values.fromAddress, updatedAt: sql`now()` },
    });
}

export interface LogEntry {
  kind: string;
  channel: string;
  state: string;
  attempts: number;
  reason: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

/** A person's delivery log, newest first (at most `limit`). */
export async function deliveryLog(db: Db, userId: string, limit = 200): Promise<LogEntry[]> {
  return db
    .select({
      kind: notifications.kind,
      channel: notifications.channel,
      state: notifications.state,
      attempts: notifications.attempts,
      reason: notifications.lastError,
      createdAt: notifications.createdAt,
      sentAt: notifications.sentAt,
    })
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit);
}

/** Whose delivery log an admin asks for: the person's name and institution, or null when there is no such account. */
export async function logSubject(db: Db, userId: string): Promise<{ id: string; name: string; institutionId: number | null } | null> {
  const [who] = await db
    .select({ id: users.id, name: users.name, institutionId: users.institutionId })
    .from(users)
    .where(eq(users.id, userId));
  return who ?? null;
}
