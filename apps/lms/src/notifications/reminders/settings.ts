import { startOfZonedDay, zonedParts } from '../../domain/learning/credits.js';

// What the scheduled scans (./index.ts) are told by the deployment, and the calendar and URL
// arithmetic they share. Days, weeks and years are those of the deployment's time zone
// (PAGES_TIME_ZONE, as the pages and the credit record count them): a digest "of 28 November"
// and the credit reminder "from 1 November" mean those days in WIB, not in UTC.

export interface ReminderSettings {
  /** Where people reach the LMS (PUBLIC_URL): every URL in a notification is absolute. */
  publicUrl: string;
  /** The deployment's time zone (PAGES_TIME_ZONE). */
  timeZone: string;
  /** Days without activity in a course after which its learner is nudged once (REMINDER_INACTIVE_DAYS). */
  inactiveDays: number;
  /** From which day of the year (MM-DD, in timeZone) members below their partner's yearly target are told (CREDIT_REMINDER_FROM). */
  creditReminderFrom: string;
  /**
   * How long after a reminder falls due the scans still find it (hours). The scan runs hourly; a
   * reminder stays findable this long, so an instance that was down for less than this catches up,
   * and a scan never walks the whole history (a learner inactive since last year is not nudged
   * when the feature is switched on). The records' key makes the repeats one notification.
   */
  catchUpHours: number;
  /** Candidates read per statement: no scan holds more than this many rows at once. */
  batchSize: number;
}

export const REMINDER_DEFAULTS = { inactiveDays: 14, creditReminderFrom: '11-01', catchUpHours: 24, batchSize: 500 } as const;

/** The settings of a deployment from its configuration, with the defaults for the rest. */
export function reminderSettings(config: {
  PUBLIC_URL: string;
  PAGES_TIME_ZONE: string;
  REMINDER_INACTIVE_DAYS: number;
  CREDIT_REMINDER_FROM: string;
}): ReminderSettings {
  return {
    ...REMINDER_DEFAULTS,
    publicUrl: config.PUBLIC_URL,
    timeZone: config.PAGES_TIME_ZONE,
    inactiveDays: config.REMINDER_INACTIVE_DAYS,
    creditReminderFrom: config.CREDIT_REMINDER_FROM,
  };
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

// ---------------------------------------------------------------------------------------------
// Absolute URLs of the pages a notification links to (the routes under apps/lms/src/pages)

const base = (s: Pick<ReminderSettings, 'publicUrl'>) => s.publicUrl.replace(/\/+$/, '');

export const pageUrls = (s: Pick<ReminderSettings, 'publicUrl'>) => ({
  /** The course page (pages/course): the outline, the learner's progress, the enrol section. */
  course: (courseId: number) => `${base(s)}/dashboard/courses/${courseId}`,
  /**
   * Where a buyer finds a pending purchase's transfer instructions: a course's enrol section; for
   * a bundle, the dashboard, whose "waiting for payment" section links to the bundle's card.
   */
  purchase: (p: { courseId: number | null; bundleId: number | null }) =>
    p.bundleId === null && p.courseId !== null ? `${base(s)}/dashboard/courses/${p.courseId}#enrol` : `${base(s)}/dashboard`,
  /** The member's credit record (pages/learning/credits.ts). */
  credits: () => `${base(s)}/learn/credits`,
  /** The transfers an admin confirms (pages/learning/transfers.ts), oldest first. */
  transfers: () => `${base(s)}/dashboard/transfers`,
  /** A teacher's dashboard: their courses, each with its studio link. */
  studio: () => `${base(s)}/dashboard`,
});

// ---------------------------------------------------------------------------------------------
// Calendar labels in the zone

const pad = (n: number) => String(n).padStart(2, '0');

/** The day of `at` in `timeZone`, YYYY-MM-DD: the admin digest's period. */
export function zonedDate(at: Date, timeZone: string): string {
  const p = zonedParts(at, timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** The ISO 8601 week (Monday first; week 1 holds the year's first Thursday) of a calendar day. */
export function isoWeek(year: number, month: number, day: number): string {
  const d = new Date(Date.UTC(year, month - 1, day));
  const weekday = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - weekday);
  const weekYear = d.getUTCFullYear();
  const week = Math.ceil(((d.getTime() - Date.UTC(weekYear, 0, 1)) / DAY_MS + 1) / 7);
  return `${weekYear}-W${pad(week)}`;
}

/**
 * The last whole ISO week before `now` in `timeZone`: [from, to) from Monday 00:00 to the next
 * Monday 00:00, its first and last days (YYYY-MM-DD) and its label (2026-W48). A weekly digest
 * reports it whenever in the following week it runs, so two runs give the same period.
 */
export function previousIsoWeek(now: Date, timeZone: string) {
  const p = zonedParts(now, timeZone);
  const weekday = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay() || 7;
  const to = startOfZonedDay(p.year, p.month, p.day - (weekday - 1), timeZone);
  const from = startOfZonedDay(p.year, p.month, p.day - (weekday - 1) - 7, timeZone);
  // The days from the UTC calendar (no zone offsets): Date.UTC normalises day 0 and negatives.
  const day = (offset: number) => new Date(Date.UTC(p.year, p.month - 1, p.day - (weekday - 1) + offset)).toISOString().slice(0, 10);
  const first = day(-7);
  const [y, m, d] = first.split('-').map(Number) as [number, number, number];
  return { from, to, firstDay: first, lastDay: day(-1), label: isoWeek(y, m, d) };
}

/** The instant `monthDay` (MM-DD) of `year` starts in `timeZone`. */
export function startOfMonthDay(year: number, monthDay: string, timeZone: string): Date {
  const [m, d] = monthDay.split('-').map(Number) as [number, number];
  return startOfZonedDay(year, m, d, timeZone);
}

/** Whole rupiah, as the contract's amounts are (the columns are numeric text). */
export const wholeAmount = (v: unknown) => Math.round(Number(v));

/** A timestamp column of a raw row (node-postgres and PGlite give Date; text is parsed). */
export const dateOf = (v: unknown) => new Date(v as string | Date);
