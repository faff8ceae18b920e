import type { Db } from '@lms/db';

// What the parts of notifications agree on (docs/operations.md, "Notifications"): the kinds, what each kind's
// template is given, and the channels' interface. The parts: the queue (jobs/), the record and
// the send job (notifications/notify.ts, send.ts), the words (notifications/templates/), the
// channels (notifications/mail/, notifications/whatsapp/), and what decides to send (the domain's
// transactions for receipts; notifications/reminders.ts for what is sent on a schedule).

export const NOTIFICATION_KINDS = [
  'enrolment.confirmed',
  'purchase.transfer_instructions',
  'purchase.paid',
  'purchase.rejected',
  'purchase.refunded',
  'purchase.expiring',
  'certificate.issued',
  'attempt.granted',
  'course.ending',
  'course.inactive',
  'credits.progress',
  'digest.admin',
  'digest.teacher',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Receipts: a person cannot switch them off and they carry no List-Unsubscribe (RFC 8058 is for the rest). */
export const RECEIPT_KINDS: ReadonlySet<NotificationKind> = new Set<NotificationKind>([
  'enrolment.confirmed',
  'purchase.transfer_instructions',
  'purchase.paid',
  'purchase.rejected',
  'purchase.refunded',
  'certificate.issued',
]);

/** Reminders: held back during the person's quiet hours (receipts and digests are not). */
export const REMINDER_KINDS: ReadonlySet<NotificationKind> = new Set<NotificationKind>([
  'purchase.expiring',
  'course.ending',
  'course.inactive',
  'credits.progress',
]);

export const NOTIFICATION_CHANNELS = ['email', 'whatsapp'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
export type NotificationLocale = 'id' | 'en';

/**
 * What each kind's template is given. Amounts are whole rupiah (numbers), times ISO 8601 strings,
 * URLs absolute. The templates format them in the person's language and time zone.
 */
export interface NotificationData {
  'enrolment.confirmed': { courseTitle: string; courseUrl: string };
  'purchase.transfer_instructions': {
    itemTitle: string;
    amount: number;
    reference: string;
    bankName: string;
    accountNumber: string;
    accountName: string;
    payBefore: string;
    purchaseUrl: string;
  };
  'purchase.paid': { itemTitle: string; amount: number; courseUrl: string };
  'purchase.rejected': { itemTitle: string; amount: number; reason: string; purchaseUrl: string };
  'purchase.refunded': { itemTitle: string; amount: number; reason: string; purchaseUrl: string };
  'purchase.expiring': { itemTitle: string; amount: number; reference: string; payBefore: string; purchaseUrl: string };
  'certificate.issued': { courseTitle: string; certificateUrl: string; pdfUrl: string; credentialUrl: string };
  'attempt.granted': { courseTitle: string; quizTitle: string; quizUrl: string };
  'course.ending': { courseTitle: string; courseUrl: string; endsAt: string; daysLeft: number; progressPercent: number };
  'course.inactive': { courseTitle: string; courseUrl: string; daysInactive: number };
  'credits.progress': { year: number; earned: number; target: number; unit: string; partnerName: string; creditsUrl: string };
  'digest.admin': {
    institutionName: string;
    pendingTransfers: number;
    stuckPayments: number;
    /** Up to 20 lines such as "INV-7Q2K · Rp 350.000 · Budi" (already plain text). */
    lines: string[];
    transfersUrl: string;
  };
  'digest.teacher': {
    newLearners: number;
    evaluationComments: number;
    /** Up to 20 lines: a course and a comment or a learner (already plain text). */
    lines: string[];
    studioUrl: string;
  };
}

/**
 * A notification to record: one per key `${kind}:${subject}:${period}` (period '' when the kind
 * happens once per subject), so a retry, a second instance or a restart records it once.
 */
export type NotificationRequest = {
  [K in NotificationKind]: {
    kind: K;
    /** The recipient (users.id). */
    userId: string;
    /** The institution whose settings (kinds switched off, from-address) apply; null: the deployment's. */
    institutionId: number | null;
    /** What it is about, e.g. `purchase:42`, `course:7`. */
    subject: string;
    /** Which occurrence, e.g. `2026-11`, `7d`, `2026-W48`; '' when once per subject. */
    period?: string;
    data: NotificationData[K];
  };
}[NotificationKind];

/**
 * Records a notification in the caller's transaction (once per key) and enqueues its sending in
 * the same transaction: written with the change or not at all.
 */
export type Notify = (tx: Db, request: NotificationRequest) => Promise<{ id: number; created: boolean }>;

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

export interface MessageLinks {
  publicUrl: string;
  /** The one-click unsubscribe URL; absent for receipts. */
  unsubscribeUrl?: string;
  /** The person's notification settings page. */
  settingsUrl: string;
}

export interface OutgoingEmail {
  to: string;
  toName: string;
  /** The institution's from-address when it has one; else the deployment's MAIL_FROM. */
  from?: string;
  kind: NotificationKind;
  /** The notification's key: the Message-ID is derived from it. */
  key: string;
  message: RenderedMessage;
  /** Sets List-Unsubscribe and List-Unsubscribe-Post (RFC 8058); absent for receipts. */
  unsubscribeUrl?: string;
}

export interface OutgoingWhatsApp {
  /** E.164 without '+', as the Cloud API takes it: 6281234567890. */
  to: string;
  kind: NotificationKind;
  key: string;
  /** A pre-approved template: its name, its language code (id, en) and its body parameters in order. */
  template: { name: string; language: NotificationLocale; parameters: string[] };
}

export interface SendResult {
  /** The provider's id of the message (SMTP's Message-ID, WhatsApp's wamid). */
  providerMessageId: string;
}

/** The send may succeed later (connection refused, 4xx SMTP, 429/5xx HTTP): retried with backoff. */
export class TemporaryDeliveryError extends Error {
  override readonly name = 'TemporaryDeliveryError';
}

/** The send will never succeed (5xx SMTP for the address, a number not on WhatsApp): failed at once. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

export interface EmailSender {
  send(mail: OutgoingEmail): Promise<SendResult>;
  close(): Promise<void>;
}

export interface WhatsAppSender {
  send(message: OutgoingWhatsApp): Promise<SendResult>;
}
