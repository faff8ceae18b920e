import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { DAY_MS, dateOf, HOUR_MS, pageUrls, type ReminderSettings, wholeAmount } from './settings.js';
import { type Dispatch, forEachBatch, num } from './send.js';

// The learner's reminders (docs/operations.md, "Reminders"): a course ending in 7 days and in 1
// day while the learner has not finished it; a course left untouched for inactiveDays; a pending
// transfer that expires within 24 hours. Each is due from an edge (the end date minus 7 days, the
// last activity plus inactiveDays) and found by the scans during the catch-up window after it.

/** Not finished: chapters left, and no certificate in force (an admin may issue one before the last chapter). */
const unfinished = sql`e.completed_chapters < c.chapter_count
  and not exists (select 1 from certificates k where k.user_id = e.user_id and k.course_id = e.course_id and k.revoked_at is null)`;

interface EndingRow {
  id: number;
  userId: string;
  courseId: number;
  name: string;
  institutionId: number;
  endDate: Date;
  completed: number;
  chapters: number;
}

/** 'course.ending' at 7 days and at 1 day before the course's end date: period '7d' or '1d', subject the enrolment. */
export async function scanCourseEnding(db: Db, now: Date, s: ReminderSettings, out: Dispatch): Promise<void> {
  const urls = pageUrls(s);
  for (const [period, days] of [
    ['7d', 7],
    ['1d', 1],
  ] as const) {
    // Due once the end is at most `days` away; found until catchUpHours later (and never after the end).
    const hi = new Date(now.getTime() + days * DAY_MS);
    const lo = new Date(Math.max(now.getTime(), hi.getTime() - s.catchUpHours * HOUR_MS));
    await forEachBatch(
      s.batchSize,
      [0, 0] as [number, number],
      (after, limit) =>
        typedRows<EndingRow>(
          db,
          sql`
          select e.id, e.user_id as "userId", e.course_id as "courseId", c.name, c.institution_id as "institutionId",
            c.end_date as "endDate", e.completed_chapters as completed, c.chapter_count as chapters
          from courses c join enrollments e on e.course_id = c.id join users u on u.id = e.user_id and u.is_active
          where c.end_date > ${lo} and c.end_date <= ${hi} and (e.course_id, e.id) > (${after[0]}, ${after[1]}) and ${unfinished}
          order by e.course_id, e.id limit ${limit}`,
        ),
      (r): [number, number] => [num(r.courseId), num(r.id)],
      async (rows) => {
        for (const r of rows) {
          const endsAt = dateOf(r.endDate);
          const chapters = num(r.chapters);
          await out.send({
            kind: 'course.ending',
            userId: r.userId,
            institutionId: num(r.institutionId),
            subject: `enrollment:${r.id}`,
            period,
            data: {
              courseTitle: r.name,
              courseUrl: urls.course(num(r.courseId)),
              endsAt: endsAt.toISOString(),
              daysLeft: Math.ceil((endsAt.getTime() - now.getTime()) / DAY_MS),
              progressPercent: chapters > 0 ? Math.floor((100 * num(r.completed)) / chapters) : 0,
            },
          });
        }
      },
    );
  }
}

interface InactiveRow {
  id: number;
  userId: string;
  courseId: number;
  name: string;
  institutionId: number;
  last: Date;
}

/**
 * 'course.inactive': an unfinished enrolment in a course that is running (started, not ended)
 * whose last activity (enrolling, a completed chapter, time on a chapter, a quiz attempt, or the
 * course's start) is inactiveDays old. Once per enrolment (period ''): a learner who comes back and
 * stops again is not nudged twice. No column holds the last activity, so the scan walks the
 * enrolments in id ranges of batchSize (two bounded statements per range: the range's end, then
 * its candidates, each looked up by the indexes of their own rows).
 */
export async function scanInactive(db: Db, now: Date, s: ReminderSettings, out: Dispatch): Promise<void> {
  const urls = pageUrls(s);
  const dueAt = new Date(now.getTime() - s.inactiveDays * DAY_MS);
  const foundUntil = new Date(dueAt.getTime() - s.catchUpHours * HOUR_MS);
  let after = 0;
  for (;;) {
    const [range] = await typedRows<{ upTo: number | null }>(
      db,
      sql`select max(id) as "upTo" from (select id from enrollments where id > ${after} order by id limit ${s.batchSize}) b`,
    );
    if (range?.upTo === null || range?.upTo === undefined) return;
    const upTo = num(range.upTo);
    const rows = await typedRows<InactiveRow>(
      db,
      sql`
      select * from (
        select e.id, e.user_id as "userId", e.course_id as "courseId", c.name, c.institution_id as "institutionId",
          greatest(e.enrolled_at, c.start_date,
            (select max(cc.completed_at) from chapter_completions cc where cc.user_id = e.user_id and cc.course_id = e.course_id),
            (select max(ct.last_beat_at) from chapter_time ct where ct.course_id = e.course_id and ct.user_id = e.user_id),
            (select max(coalesce(a.submitted_at, a.attempted_at)) from quiz_attempts a join quizzes q on q.id = a.quiz_id
              where a.user_id = e.user_id and q.course_id = e.course_id)) as last
        from enrollments e join courses c on c.id = e.course_id join users u on u.id = e.user_id and u.is_active
        where e.id > ${after} and e.id <= ${upTo} and e.enrolled_at <= ${dueAt}
          and (c.start_date is null or c.start_date <= ${dueAt}) and (c.end_date is null or c.end_date > ${now}) and ${unfinished}
        -- offset 0 keeps the subquery whole: flattened, each row's three look-ups ran once per condition below.
        offset 0
      ) x
      where x.last <= ${dueAt} and x.last > ${foundUntil}
      order by x.id`,
    );
    for (const r of rows) {
      await out.send({
        kind: 'course.inactive',
        userId: r.userId,
        institutionId: num(r.institutionId),
        subject: `enrollment:${r.id}`,
        period: '',
        data: {
          courseTitle: r.name,
          courseUrl: urls.course(num(r.courseId)),
          daysInactive: Math.floor((now.getTime() - dateOf(r.last).getTime()) / DAY_MS),
        },
      });
    }
    after = upTo;
  }
}

interface ExpiringRow {
  id: number;
  userId: string;
  courseId: number | null;
  bundleId: number | null;
  amount: string;
  reference: string;
  expiresAt: Date;
  title: string;
  institutionId: number | null;
}

/**
 * 'purchase.expiring': a bank transfer waiting for payment that expires within the next 24
 * hours (once per purchase, period ''). Not for a purchase whose whole window is 24 hours or
 * less (PURCHASE_PENDING_HOURS ≤ 24): its instructions, just sent, already say the deadline.
 * A purchase cancelled, rejected, expired or paid is not pending, so it is not found.
 */
export async function scanExpiringPurchases(db: Db, now: Date, s: ReminderSettings, out: Dispatch): Promise<void> {
  const urls = pageUrls(s);
  const until = new Date(now.getTime() + DAY_MS);
  await forEachBatch(
    s.batchSize,
    0,
    (after, limit) =>
      typedRows<ExpiringRow>(
        db,
        sql`
        select p.id, p.user_id as "userId", p.course_id as "courseId", p.bundle_id as "bundleId", p.amount, p.reference,
          p.expires_at as "expiresAt", coalesce(c.name, b.name) as title, coalesce(c.institution_id, c1.institution_id) as "institutionId"
        from purchases p join users u on u.id = p.user_id and u.is_active
          left join courses c on c.id = p.course_id left join bundles b on b.id = p.bundle_id left join courses c1 on c1.id = b.course_one_id
        where p.status = 'pending' and p.provider = 'bank_transfer' and p.reference is not null
          and p.expires_at > ${now} and p.expires_at <= ${until} and p.expires_at - p.created_at > interval '24 hours'
          and coalesce(c.name, b.name) is not null and p.id > ${after}
        order by p.id limit ${limit}`,
      ),
    (r) => num(r.id),
    async (rows) => {
      for (const r of rows) {
        const courseId = r.courseId === null ? null : num(r.courseId);
        const bundleId = r.bundleId === null ? null : num(r.bundleId);
        await out.send({
          kind: 'purchase.expiring',
          userId: r.userId,
          institutionId: r.institutionId === null ? null : num(r.institutionId),
          subject: `purchase:${r.id}`,
          period: '',
          data: {
            itemTitle: r.title,
            amount: wholeAmount(r.amount),
            reference: r.reference,
            payBefore: dateOf(r.expiresAt).toISOString(),
            purchaseUrl: urls.purchase({ courseId, bundleId }),
          },
        });
      }
    },
  );
}
