import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { institutions, users } from './people.js';
import { tstz } from './timestamps.js';

// Notifications (docs/notifications.md): one row per message to one person on one channel, written
// in the transaction of what caused it (a receipt) or by the scheduler (a reminder), sent by the
// job queue. The row is the record and the per-person delivery log; it is purged after
// NOTIFICATION_LOG_RETENTION_DAYS.

/** One message to one person on one channel: once per (key, channel), key = `${kind}:${subject}:${period}`. */
export const notifications = pgTable(
  'notifications',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    key: text().notNull(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Whose settings apply (kinds off, from-address); null: the deployment's. */
    institutionId: integer().references(() => institutions.id, { onDelete: 'set null' }),
    kind: text().notNull(),
    channel: text().notNull(),
    /** What the template is given (contract.ts NotificationData[kind]). */
    data: jsonb().notNull(),
    /** pending until sent, failed (given up) or skipped (switched off). */
    state: text().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    /** Why it failed or was skipped. */
    lastError: text(),
    providerMessageId: text(),
    /** Not before then (quiet hours); null: at once. */
    sendAfter: tstz(),
    /** A sender's lease: nobody else sends it before then (a killed instance's lease runs out). */
    lockedUntil: tstz(),
    createdAt: tstz().notNull().defaultNow(),
    sentAt: tstz(),
  },
  (t) => [
    uniqueIndex('notifications_key_channel').on(t.key, t.channel),
    // The per-person delivery log, newest first.
    index('notifications_user_created_idx').on(t.userId, t.createdAt),
    // The retention purge reads the oldest first.
    index('notifications_created_idx').on(t.createdAt),
    check('notifications_state', sql`${t.state} in ('pending', 'sent', 'failed', 'skipped')`),
    check('notifications_channel', sql`${t.channel} in ('email', 'whatsapp')`),
  ],
);

/** A person's choice per kind and channel; no row: on. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    channel: text().notNull(),
    enabled: boolean().notNull(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'notification_preferences_pkey', columns: [t.userId, t.kind, t.channel] })],
);

/** A person's language, time zone, quiet hours and WhatsApp number; no row: the defaults. */
export const notificationSettings = pgTable(
  'notification_settings',
  {
    userId: text()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    locale: text().notNull().default('id'),
    timeZone: text().notNull().default('Asia/Jakarta'),
    /** Quiet hours in the person's time zone, minutes after midnight; both null: none. */
    quietStartMinute: smallint(),
    quietEndMinute: smallint(),
    /** E.164 with its '+', e.g. +6281234567890. */
    whatsappPhone: text(),
    /** Set when the person typed the code sent to whatsappPhone; cleared when the number changes. */
    phoneConfirmedAt: tstz(),
    /** SHA-256 (hex) of the code sent, its expiry and the wrong tries so far (5 allowed). */
    confirmationCodeHash: text(),
    confirmationCodeExpiresAt: tstz(),
    confirmationTries: integer().notNull().default(0),
    whatsappOptIn: boolean().notNull().default(false),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    check('notification_settings_locale', sql`${t.locale} in ('id', 'en')`),
    check(
      'notification_settings_quiet_hours',
      sql`(${t.quietStartMinute} is null) = (${t.quietEndMinute} is null) and coalesce(${t.quietStartMinute}, 0) between 0 and 1439 and coalesce(${t.quietEndMinute}, 0) between 0 and 1439`,
    ),
  ],
);

/** An institution's kinds switched off and its from-address; no row: everything on, MAIL_FROM. */
export const institutionNotificationSettings = pgTable('institution_notification_settings', {
  institutionId: integer()
    .primaryKey()
    .references(() => institutions.id, { onDelete: 'cascade' }),
  disabledKinds: text().array().notNull().default(sql`'{}'::text[]`),
  fromAddress: text(),
  updatedAt: tstz().notNull().defaultNow(),
});
