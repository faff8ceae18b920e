import type { Db } from '@lms/db';
import type { Notify } from '../contract.js';
import { scanCreditProgress } from './credits.js';
import { scanCourseEnding, scanExpiringPurchases, scanInactive } from './learners.js';
import { Dispatch, type ScanReport } from './send.js';
import type { ReminderSettings } from './settings.js';

// What is sent on a schedule (docs/operations.md, "Reminders"): functions that find the
// notifications due at `now` and hand each to `notify` (the records, notifications/notify.ts),
// which records it once per key and enqueues its sending. The job queue runs them from its cron
// jobs: 'reminders.scan' hourly (scanReminders), 'digests.admin' daily (scanAdminDigest),
// 'digests.teacher' weekly (scanTeacherDigest). A scan may run twice, on two instances, or after
// a restart: it asks for the same keys, and the records keep one notification per key.
//
// Keys (contract.ts: kind:subject:period; the subject names the recipient's own thing, so two
// learners never share a key):
//   course.ending      enrollment:<id>                      7d | 1d
//   course.inactive    enrollment:<id>                      ''
//   purchase.expiring  purchase:<id>                        ''
//   credits.progress   credit-target:<id>:user:<userId>     <year>
//   digest.admin       institution:<id>:user:<userId>       <YYYY-MM-DD in the zone>
//   digest.teacher     user:<userId>                        <ISO week, 2026-W48>

/** The hourly scan: course endings, inactivity, expiring transfers, and (from creditReminderFrom) credit progress. */
export async function scanReminders(db: Db, now: Date, notify: Notify, settings: ReminderSettings): Promise<ScanReport> {
  const out = new Dispatch(db, notify);
  await scanCourseEnding(db, now, settings, out);
  await scanInactive(db, now, settings, out);
  await scanExpiringPurchases(db, now, settings, out);
  await scanCreditProgress(db, now, settings, out);
  return out.report;
}

export { DIGEST_KINDS, digestKindsFor, scanAdminDigest, scanTeacherDigest, STUCK_SHARE } from './digests.js';
export type { ScanReport } from './send.js';
export { isoWeek, previousIsoWeek, REMINDER_DEFAULTS, type ReminderSettings, reminderSettings, zonedDate } from './settings.js';
export type { NotificationRequest, Notify } from '../contract.js';
