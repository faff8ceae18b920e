import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { type CreditRecord, creditRecordsOf, earnedBetween, yearStart, zonedYear } from '../../domain/learning/credits.js';
import { HOUR_MS, pageUrls, type ReminderSettings, startOfMonthDay } from './settings.js';
import { type Dispatch, forEachBatch, num } from './send.js';

// 'credits.progress' (docs/operations.md, "Reminders"): near the end of the year, a member below
// a partner's yearly target is told how far they are, once per year and target. Earned is what
// the member's credit record counts (domain/learning/credits.ts: accredited, not voided, earned
// since 1 January in the deployment's zone), exactly as /learn/credits shows it. Targets of a
// rolling window have no year end to remind of and are left out.

interface TargetRow {
  userId: string;
  institutionId: number | null;
  targetId: number;
  partner: string;
  scheme: string;
  amount: number;
  unit: string;
}

/**
 * Due from creditReminderFrom (00:00 of that day in the zone) and found during the catch-up
 * window after it: members are paged by user id (batchSize a statement), their targets and
 * credit records read once per batch.
 */
export async function scanCreditProgress(db: Db, now: Date, s: ReminderSettings, out: Dispatch): Promise<void> {
  const year = zonedYear(now, s.timeZone);
  const dueFrom = startOfMonthDay(year, s.creditReminderFrom, s.timeZone);
  if (now < dueFrom || now.getTime() >= dueFrom.getTime() + s.catchUpHours * HOUR_MS) return;
  const from = yearStart(now, s.timeZone);
  const creditsUrl = pageUrls(s).credits();
  // Members holding an identity of an active partner that has a yearly target.
  const holders = sql`identities i join partners p on p.issuer = i.issuer and p.is_active
    join credit_targets t on t.partner_id = p.id and t.period = 'calendar_year'
    join users u on u.id = i.user_id and u.is_active`;
  await forEachBatch(
    s.batchSize,
    '',
    (after, limit) =>
      typedRows<{ userId: string }>(
        db,
        sql`select distinct i.user_id as "userId" from ${holders} where i.user_id > ${after} order by i.user_id limit ${limit}`,
      ),
    (r) => r.userId,
    async (members) => {
      const ids = members.map((m) => m.userId);
      const list = sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      );
      const [targets, records] = await Promise.all([
        typedRows<TargetRow>(
          db,
          sql`
          select i.user_id as "userId", u.institution_id as "institutionId", t.id as "targetId", p.name as partner, t.scheme,
            t.amount::float8 as amount, coalesce(cs.unit, t.scheme) as unit
          from ${holders} left join credit_schemes cs on cs.code = t.scheme
          where i.user_id in (${list})
          order by i.user_id, t.id`,
        ),
        creditRecordsOf(db, ids, now),
      ]);
      const byUser = new Map<string, CreditRecord[]>();
      for (const r of records) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r]);
      for (const t of targets) {
        const earned = earnedBetween(byUser.get(t.userId) ?? [], t.scheme, from, now);
        const target = Number(t.amount);
        if (earned >= target) continue;
        await out.send({
          kind: 'credits.progress',
          userId: t.userId,
          institutionId: t.institutionId === null ? null : num(t.institutionId),
          subject: `credit-target:${t.targetId}:user:${t.userId}`,
          period: String(year),
          data: { year, earned, target, unit: t.unit, partnerName: t.partner, creditsUrl },
        });
      }
    },
  );
}
