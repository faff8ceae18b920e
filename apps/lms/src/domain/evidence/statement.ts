import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { startOfZonedDay } from '../learning/credits.js';

// A member's yearly statement per scheme (docs/authoring.md, "Reports per body"): the credits
// counted in one scheme in one calendar year (the deployment's time zone), each with the
// accreditation it was earned under, the course, the date, the certificate code and the units,
// and their total: what the member submits to their association (an IAI member's yearly report
// is due by the end of January). Voided credits (revoked certificates) are left out.

export interface StatementLine {
  earnedAt: Date;
  courseName: string;
  accreditationReference: string | null;
  certificateCode: string;
  amount: number;
}

export interface YearlyStatement {
  year: number;
  scheme: string;
  /** The scheme's body and unit (credit_schemes), or the scheme's code when it is not one. */
  body: string;
  unit: string;
  lines: StatementLine[];
  total: number;
}

export async function yearlyStatement(db: Db, userId: string, year: number, scheme: string, timeZone: string): Promise<YearlyStatement> {
  const from = startOfZonedDay(year, 1, 1, timeZone).toISOString();
  const to = startOfZonedDay(year + 1, 1, 1, timeZone).toISOString();
  const [rows, schemes] = await Promise.all([
    typedRows<{ earnedAt: string | Date; courseName: string; reference: string | null; code: string; amount: number }>(
      db,
      sql`select cr.earned_at as "earnedAt", c.name as "courseName", ca.reference, k.code, cr.amount::float8 as amount
        from credits cr join certificates k on k.id = cr.certificate_id join courses c on c.id = cr.course_id
          left join course_accreditations ca on ca.id = cr.accreditation_id
        where cr.user_id = ${userId} and cr.scheme = ${scheme} and cr.voided_at is null
          and cr.earned_at >= ${from}::timestamptz and cr.earned_at < ${to}::timestamptz
        order by cr.earned_at, cr.id`,
    ),
    typedRows<{ body: string; unit: string }>(db, sql`select body, unit from credit_schemes where code = ${scheme}`),
  ]);
  const lines = rows.map((r) => ({
    earnedAt: new Date(r.earnedAt),
    courseName: r.courseName,
    accreditationReference: r.reference,
    certificateCode: r.code,
    amount: r.amount,
  }));
  const total = Math.round(lines.reduce((s, l) => s + l.amount, 0) * 100) / 100;
  return { year, scheme, body: schemes[0]?.body ?? scheme, unit: schemes[0]?.unit ?? scheme, lines, total };
}
