import { notifications } from '@lms/db';
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import fp from 'fastify-plugin';
import { emailSenderOptions } from '../config.js';
import { QUEUES, SCHEDULES } from '../jobs/index.js';
import type { EmailSender, NotificationKind, WhatsAppSender } from '../notifications/contract.js';
import { linkSecret } from '../notifications/links.js';
import { createEmailSender } from '../notifications/mail/sender.js';
import { reminderSettings, scanAdminDigest, scanReminders, scanTeacherDigest } from '../notifications/reminders/index.js';
import { markFailed, type RenderWhatsApp, type SendDeps, sendNotification } from '../notifications/send.js';
import { renderNotification } from '../notifications/templates/index.js';
import { type WhatsAppStatusUpdate, whatsAppTemplate } from '../notifications/whatsapp/index.js';

// The notifications' moving parts joined on the job queue (docs/operations.md, "Notifications"):
// a recorded notification's `notification.send` job (written in the recording transaction by
// app.notify) runs sendNotification with the channels configured here; the scans that decide
// what is due on a timetable run from cron jobs (SCHEDULES), one instance per occurrence; a
// WhatsApp status (delivered, read, failed) lands on its row.

export interface NotificationChannelsOptions {
  /** The e-mail channel; default: SMTP_URL's (none when unset: e-mail rows end skipped, with the reason). */
  email?: EmailSender | null;
  /** The WhatsApp channel; default: the Cloud API's when configured. */
  whatsapp?: WhatsAppSender | null;
  /**
   * How long one send holds its row before another instance may take it over (send.ts, default
   * 2 min). Tests that kill a worker mid-send shorten it with the queue's expireInSeconds
   * (plugins/jobs.ts extraQueues) so that the recovery is seconds, not minutes.
   */
  leaseMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The channels the send job uses (null: not configured). */
    notificationChannels: { email: EmailSender | null; whatsapp: WhatsAppSender | null };
    /** Runs one hourly reminders scan now (the cron job's handler; the CLI and tests call it). */
    scanReminders(): Promise<void>;
    /** Runs the daily administrators' and the weekly teachers' digests now. */
    scanDigests(which: 'admin' | 'teacher'): Promise<void>;
    /** What a WhatsApp status webhook does: the row of that message records it. */
    recordWhatsAppStatus(update: WhatsAppStatusUpdate): Promise<void>;
  }
}

/** A pending row this old with no send under way has lost its job (or never had one). */
const STRAY_AFTER_MS = 6 * 3_600_000;
const STRAY_BATCH = 500;

const renderWhatsApp: RenderWhatsApp = (kind, locale, data, _links, timeZone) => whatsAppTemplate(kind, data, locale, timeZone);

export default fp<NotificationChannelsOptions>(
  async (app, opts) => {
    const config = app.config;
    const mailOptions = emailSenderOptions(config);
    const email = opts.email !== undefined ? opts.email : mailOptions ? createEmailSender(mailOptions) : null;
    const whatsapp = opts.whatsapp !== undefined ? opts.whatsapp : app.notificationWhatsApp;
    app.decorate('notificationChannels', { email, whatsapp });
    const deps: SendDeps = {
      db: app.db,
      publicUrl: config.PUBLIC_URL,
      linkSecret: linkSecret(config),
      disabledKinds: (config.NOTIFICATIONS_DISABLED_KINDS ?? []) as readonly NotificationKind[],
      render: renderNotification,
      email,
      ...(whatsapp ? { whatsapp: { sender: whatsapp, render: renderWhatsApp } } : {}),
      now: () => app.clock(),
      ...(opts.leaseMs !== undefined ? { leaseMs: opts.leaseMs } : {}),
    };
    const retryLimit = QUEUES['notification.send'].retryLimit;

    await app.jobs.work('notification.send', { concurrency: 8 }, async (job) => {
      const { id } = job.data;
      try {
        const outcome = await sendNotification(id, deps);
        // Quiet hours: the same row again once they end (its job is done; a new one waits).
        if (outcome.state === 'later') await app.jobs.send('notification.send', { id }, { startAfter: outcome.sendAfter });
        if (outcome.state === 'failed') app.log.warn({ notificationId: id, reason: outcome.reason }, 'notification failed for good');
      } catch (err) {
        // The last try: the row says failed, with why; earlier ones are retried with backoff.
        if (job.retryCount >= retryLimit) await markFailed(app.db, id, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        throw err;
      }
    });

    const settings = reminderSettings(config);
    app.decorate('scanReminders', async () => {
      // Rows recorded without a job (by the admin CLI, which has no queue of its own), or whose
      // job was lost: put on the queue again. The send's lease and state keep a row sent once.
      const now = app.clock();
      const stray = await app.db
        .select({ id: notifications.id })
        .from(notifications)
        .where(
          and(
            eq(notifications.state, 'pending'),
            lt(notifications.createdAt, new Date(now.getTime() - STRAY_AFTER_MS)),
            or(isNull(notifications.sendAfter), lt(notifications.sendAfter, now)),
            or(isNull(notifications.lockedUntil), lt(notifications.lockedUntil, now)),
          ),
        )
        .limit(STRAY_BATCH);
      for (const { id } of stray) await app.jobs.send('notification.send', { id });
      if (stray.length > 0) app.log.info({ rows: stray.length }, 'notifications: pending rows without a run put on the queue again');
      const report = await scanReminders(app.db, app.clock(), app.notify, settings);
      if (report.created > 0) app.log.info(report, 'reminders recorded');
    });
    app.decorate('scanDigests', async (which: 'admin' | 'teacher') => {
      const scan = which === 'admin' ? scanAdminDigest : scanTeacherDigest;
      const report = await scan(app.db, app.clock(), app.notify, settings);
      if (report.created > 0) app.log.info(report, `${which} digests recorded`);
    });
    await app.jobs.work('reminders.scan', { concurrency: 1 }, () => app.scanReminders());
    await app.jobs.work('digests.admin', { concurrency: 1 }, () => app.scanDigests('admin'));
    await app.jobs.work('digests.teacher', { concurrency: 1 }, () => app.scanDigests('teacher'));
    for (const [queue, cron] of Object.entries(SCHEDULES)) await app.jobs.schedule(queue as keyof typeof SCHEDULES, cron);

    app.decorate('recordWhatsAppStatus', async (update: WhatsAppStatusUpdate) => {
      // Meta accepts a message and may report later that it could not be delivered: the row then
      // ends failed with Meta's reason. Delivered and read change nothing (the row says sent);
      // only a row still sent changes, so a late or repeated failure changes nothing more.
      if (update.status !== 'failed') return;
      await app.db
        .update(notifications)
        .set({
          state: 'failed',
          lastError: `WhatsApp: ${update.error?.title ?? 'not delivered'} (${update.error?.code ?? '?'})`.slice(0, 500),
        })
        .where(
          and(
            eq(notifications.channel, 'whatsapp'),
            eq(notifications.providerMessageId, update.providerMessageId),
            eq(notifications.state, 'sent'),
          ),
        );
    });

    app.addHook('onClose', async () => {
      await email?.close();
    });
  },
  { name: 'notifications', dependencies: ['database', 'jobs'] },
);
