import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { pageUrls, previousIsoWeek, type ReminderSettings, wholeAmount, zonedDate } from './settings.js';
import { Dispatch, forEachBatch, num, type ScanReport } from './send.js';
import type { NotificationKind, Notify } from '../contract.js';

// The digests (docs/operations.md, "Reminders"): an admin's daily list of transfers to confirm,
// a teacher's weekly news of their courses. Sent only when there is something to say.

/** At most this many lines in a digest (contract.ts: "up to 20 lines"). */
const LINES = 20;
/** A pending payment is stuck once this share of its window has passed without a confirmation. */
export const STUCK_SHARE = 0.75;

const rupiah = new Intl.NumberFormat('id-ID', { maximumFractionDigits: 0 });
/** "Rp 350.000" (the IDR way); another currency by its code. */
const money = (amount: unknown, currency: string) =>
  currency === 'IDR' ? `Rp ${rupiah.format(wholeAmount(amount))}` : `${currency} ${Number(amount).toFixed(2)}`;

const idList = (ids: readonly (number | string)[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

interface PendingRow {
  institutionId: number;
  reference: string | null;
  amount: string;
  currency: string;
  buyer: string;
  pending: number;
  stuck: number;
}

/**
 * 'digest.admin', daily (period: the day in the zone), to every active admin of an institution
 * with transfers waiting for confirmation: how many, how many are stuck (STUCK_SHARE of their
 * window gone), and the oldest 20. An institution without an active admin sends its digest to
 * the super_admins, so that no transfer waits unseen. Institutions are paged by id; a purchase
 * belongs to its course's institution (a bundle's: its first course's, as the transfers page shows).
 */
export async function scanAdminDigest(db: Db, now: Date, notify: Notify, s: ReminderSettings): Promise<ScanReport> {
  const out = new Dispatch(db, notify);
  const period = zonedDate(now, s.timeZone);
  const transfersUrl = pageUrls(s).transfers();
  const superAdmins = await typedRows<{ id: string }>(
    db,
    sql`select id from users where role = 'super_admin' and is_active order by id limit 100`,
  );
  await forEachBatch(
    s.batchSize,
    0,
    (after, limit) =>
      typedRows<{ id: number; name: string }>(db, sql`select id, name from institutions where id > ${after} order by id limit ${limit}`),
    (r) => num(r.id),
    async (institutions) => {
      const ids = idList(institutions.map((i) => num(i.id)));
      const [pending, admins] = await Promise.all([
        typedRows<PendingRow>(
          db,
          sql`
          select * from (
            select x.*, count(*) over w as pending, count(*) filter (where x.is_stuck) over w as stuck,
              row_number() over (w order by x.created_at, x.id) as n
            from (
              select p.id, p.reference, p.amount, p.currency, p.created_at, u.name as buyer,
                coalesce(c.institution_id, c1.institution_id) as "institutionId",
                (p.expires_at is not null
                  and ${now}::timestamptz - p.created_at >= (p.expires_at - p.created_at) * ${STUCK_SHARE}) as is_stuck
              from purchases p join users u on u.id = p.user_id
                left join courses c on c.id = p.course_id left join bundles b on b.id = p.bundle_id
                left join courses c1 on c1.id = b.course_one_id
              where p.status = 'pending' and (p.expires_at is null or p.expires_at > ${now})
            ) x
            where x."institutionId" in (${ids})
            window w as (partition by x."institutionId")
          ) y where y.n <= ${LINES}
          order by y."institutionId", y.n`,
        ),
        typedRows<{ id: string; institutionId: number }>(
          db,
          sql`select id, institution_id as "institutionId" from users
            where role = 'admin' and is_active and institution_id in (${ids}) order by institution_id, id`,
        ),
      ]);
      for (const inst of institutions) {
        const id = num(inst.id);
        const rows = pending.filter((r) => num(r.institutionId) === id);
        if (rows.length === 0) continue;
        const own = admins.filter((a) => num(a.institutionId) === id).map((a) => a.id);
        const data = {
          institutionName: inst.name,
          pendingTransfers: num(rows[0]?.pending),
          stuckPayments: num(rows[0]?.stuck),
          lines: rows.map((r) => [r.reference ?? '—', money(r.amount, r.currency), r.buyer].join(' · ')),
          transfersUrl,
        };
        for (const userId of own.length > 0 ? own : superAdmins.map((a) => a.id)) {
          await out.send({ kind: 'digest.admin', userId, institutionId: id, subject: `institution:${id}:user:${userId}`, period, data });
        }
      }
    },
  );
  return out.report;
}

interface NewsRow {
  teacherId: string;
  course: string;
  text: string;
  total: number;
}

/**
 * 'digest.teacher', weekly (period: the ISO week, 2026-W48), to every active owner of courses
 * that had news in the last whole ISO week in the zone (Monday 00:00 to Monday 00:00, whenever in
 * the following week the job runs): learners enrolled, and evaluation comments written (the
 * evaluation keeps the UTC day only, so its week is the UTC days of those instants). Teachers are
 * paged by id; each statement reads one batch of them and at most 20 lines each.
 */
export async function scanTeacherDigest(db: Db, now: Date, notify: Notify, s: ReminderSettings): Promise<ScanReport> {
  const out = new Dispatch(db, notify);
  const week = previousIsoWeek(now, s.timeZone);
  const fromDay = week.from.toISOString().slice(0, 10);
  const toDay = week.to.toISOString().slice(0, 10);
  const studioUrl = pageUrls(s).studio();
  await forEachBatch(
    s.batchSize,
    '',
    (after, limit) =>
      typedRows<{ id: string; institutionId: number | null; isActive: boolean }>(
        db,
        sql`select u.id, u.institution_id as "institutionId", u.is_active as "isActive"
          from (select distinct c.teacher_id from courses c where c.teacher_id > ${after} order by c.teacher_id limit ${limit}) t
          join users u on u.id = t.teacher_id order by u.id`,
      ),
    (r) => r.id,
    async (owners) => {
      // Filtered here, not in the page's statement: a page short of inactive owners would end the paging.
      const teachers = owners.filter((r) => r.isActive);
      if (teachers.length === 0) return;
      const ids = idList(teachers.map((r) => r.id));
      const ranked = (rows: ReturnType<typeof sql>) =>
        sql`select * from (select r.*, count(*) over w as total, row_number() over (w order by r.at, r.k) as n from (${rows}) r
          window w as (partition by r."teacherId")) y where y.n <= ${LINES} order by y."teacherId", y.n`;
      const [learners, comments] = await Promise.all([
        typedRows<NewsRow>(
          db,
          ranked(sql`select c.teacher_id as "teacherId", c.name as course, u.name as text, e.enrolled_at as at, e.id::text as k
            from courses c join enrollments e on e.course_id = c.id join users u on u.id = e.user_id
            where c.teacher_id in (${ids}) and e.enrolled_at >= ${week.from} and e.enrolled_at < ${week.to}`),
        ),
        typedRows<NewsRow>(
          db,
          ranked(sql`select c.teacher_id as "teacherId", c.name as course, r.comment as text, r.submitted_on as at, r.id::text as k
            from courses c join evaluation_responses r on r.course_id = c.id
            where c.teacher_id in (${ids}) and r.submitted_on >= ${fromDay}::date and r.submitted_on < ${toDay}::date
              and btrim(r.comment) <> ''`),
        ),
      ]);
      for (const teacher of teachers) {
        const mine = (rows: NewsRow[]) => rows.filter((r) => r.teacherId === teacher.id);
        const said = mine(comments);
        const joined = mine(learners);
        if (said.length === 0 && joined.length === 0) continue;
        // Comments first (what a teacher reads a digest for), quoted and cut to one line.
        const lines = [...said.map((r) => `${r.course} · “${oneLine(r.text)}”`), ...joined.map((r) => `${r.course} · ${r.text}`)].slice(
          0,
          LINES,
        );
        await out.send({
          kind: 'digest.teacher',
          userId: teacher.id,
          institutionId: teacher.institutionId === null ? null : num(teacher.institutionId),
          subject: `user:${teacher.id}`,
          period: week.label,
          data: { newLearners: num(joined[0]?.total ?? 0), evaluationComments: num(said[0]?.total ?? 0), lines, studioUrl },
        });
      }
    },
  );
  return out.report;
}

/** The digests: each reaches only the people its scan picks (digestKindsFor). */
export const DIGEST_KINDS: ReadonlySet<NotificationKind> = new Set<NotificationKind>(['digest.admin', 'digest.teacher']);

/**
 * The digests a person can receive, by the scans' own rules: 'digest.admin' reaches an
 * institution's admins and the super_admins (scanAdminDigest: an institution's active admins,
 * else the super_admins), 'digest.teacher' the owners of at least one course (scanTeacherDigest:
 * courses.teacher_id). The settings page offers, and saves, only these of the digests.
 */
export async function digestKindsFor(db: Db, userId: string): Promise<ReadonlySet<NotificationKind>> {
  const [person] = await typedRows<{ admin: boolean; teaches: boolean }>(
    db,
    sql`select (u.role = 'super_admin' or (u.role = 'admin' and u.institution_id is not null)) as admin,
        exists (select 1 from courses c where c.teacher_id = u.id) as teaches
      from users u where u.id = ${userId}`,
  );
  const kinds = new Set<NotificationKind>();
  if (person?.admin) kinds.add('digest.admin');
  if (person?.teaches) kinds.add('digest.teacher');
  return kinds;
}

/** A comment as one line of at most 140 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 140 ? `${flat.slice(0, 139)}…` : flat;
}
