import { type creditTargets, type Db, type identities, type partners, type RawSelect, typedRows, type users } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { type CertificateStatus, certificateStatus } from './certificates.js';
import { type CsvDialect, csvLine } from '../../lib/csv.js';

// A member's credit record (docs/architecture.md, "Credits"): every KUM/SKP a certificate earned
// (the `credits` rows written with the certificate), totals per scheme per calendar year and per
// rolling window, and the progress against the targets of the partners the member holds an
// identity with. Years and days are those of the deployment's time zone (PAGES_TIME_ZONE, as the
// pages write dates): a certificate issued at 23:30 WIB on 31 December counts in that year.
// One statement reads the records; every total is computed from them.

export interface CreditRecord {
  id: number;
  userId: string;
  courseId: number;
  courseName: string;
  scheme: string;
  amount: number;
  earnedAt: Date;
  certificateCode: string;
  certificateStatus: CertificateStatus;
  /** A revoked certificate voids its credit: shown (as voided), never counted. */
  voidedAt: Date | null;
  /** The accreditation it was earned under, or null: shown, never counted (credit needs an accreditation). */
  accreditation: { scheme: string; reference: string } | null;
}

/** Counted in totals and targets: accredited and not voided. */
export const isCounted = (r: Pick<CreditRecord, 'voidedAt' | 'accreditation'>): boolean => r.voidedAt === null && r.accreditation !== null;

export interface YearTotal {
  scheme: string;
  year: number;
  amount: number;
}

export interface RollingTotal {
  scheme: string;
  years: number;
  from: Date;
  amount: number;
}

export type TargetPeriod = 'calendar_year' | 'rolling';

export interface TargetProgress {
  partner: string;
  issuer: string;
  scheme: string;
  period: TargetPeriod;
  years: number;
  target: number;
  earned: number;
  from: Date;
}

export interface MemberCredits {
  records: CreditRecord[];
  yearTotals: YearTotal[];
  rollingTotals: RollingTotal[];
  targets: TargetProgress[];
}

/** The rolling window every scheme is totalled over, besides the targets' own windows. */
export const DEFAULT_ROLLING_YEARS = 3;

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic in a time zone (Intl only; formatters made once per zone)

const partsFormats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormats.set(timeZone, f);
  }
  return f;
}

/** The wall-clock date and time of `at` in `timeZone`. */
export function zonedParts(at: Date, timeZone: string) {
  const out: Record<string, number> = {};
  for (const p of partsFormat(timeZone).formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { year: out.year, month: out.month, day: out.day, hour: out.hour % 24, minute: out.minute, second: out.second };
}

/** The calendar year of `at` in `timeZone`. */
export function zonedYear(at: Date, timeZone: string): number {
  return zonedParts(at, timeZone).year;
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in ms. */
function offsetMs(at: Date, timeZone: string): number {
  const p = zonedParts(at, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant the day year-month-day starts in `timeZone` (Date.UTC normalises: 29 Feb of a common year is 1 Mar). */
export function startOfZonedDay(year: number, month: number, day: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day);
  let t = wall - offsetMs(new Date(wall), timeZone);
  t = wall - offsetMs(new Date(t), timeZone);
  return new Date(t);
}

/** Start of the rolling window of `years` years ending at `now`: the start of the same day `years` years before, in `timeZone`. */
export function rollingStart(now: Date, years: number, timeZone: string): Date {
  const p = zonedParts(now, timeZone);
  return startOfZonedDay(p.year - years, p.month, p.day, timeZone);
}

/** Start of the calendar year of `now` in `timeZone`. */
export function yearStart(now: Date, timeZone: string): Date {
  return startOfZonedDay(zonedYear(now, timeZone), 1, 1, timeZone);
}

// ---------------------------------------------------------------------------------------------
// Reading

const round2 = (n: number) => Math.round(n * 100) / 100;

const recordColumns = sql`cr.id, cr.user_id as "userId", cr.course_id as "courseId", c.name as "courseName", cr.scheme,
  cr.amount::float8 as amount, cr.earned_at as "earnedAt", cr.voided_at as "voidedAt", k.code as "certificateCode",
  k.revoked_at as "revokedAt", k.expires_at as "expiresAt", a.scheme as "accreditationScheme", a.reference as "accreditationReference"`;
const recordFrom = sql`credits cr join certificates k on k.id = cr.certificate_id join courses c on c.id = cr.course_id
  left join course_accreditations a on a.id = cr.accreditation_id`;

const optionalDate = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date));

function toRecord(row: Record<string, unknown>, now: Date): CreditRecord {
  const revokedAt = optionalDate(row.revokedAt);
  const expiresAt = optionalDate(row.expiresAt);
  return {
    id: Number(row.id),
    userId: String(row.userId),
    courseId: Number(row.courseId),
    courseName: String(row.courseName),
    scheme: String(row.scheme),
    amount: Number(row.amount),
    earnedAt: new Date(row.earnedAt as string | Date),
    certificateCode: String(row.certificateCode),
    certificateStatus: certificateStatus({ revokedAt, expiresAt }, now),
    voidedAt: optionalDate(row.voidedAt),
    accreditation:
      row.accreditationReference === null || row.accreditationReference === undefined
        ? null
        : { scheme: String(row.accreditationScheme), reference: String(row.accreditationReference) },
  };
}

/** The records of these members (one statement), newest first. */
async function readRecords(db: Db, where: SQL, now: Date): Promise<CreditRecord[]> {
  const { rows } = await db.execute(sql`select ${recordColumns} from ${recordFrom} where ${where} order by cr.earned_at desc, cr.id desc`);
  return rows.map((r) => toRecord(r as Record<string, unknown>, now));
}

/** The records of several members (one statement; the ids of one batch or page), newest first. */
export async function creditRecordsOf(db: Db, userIds: readonly string[], now: Date): Promise<CreditRecord[]> {
  if (userIds.length === 0) return [];
  const ids = sql.join(
    userIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return readRecords(db, sql`cr.user_id in (${ids})`, now);
}

/** Counted credits per scheme per calendar year (in `timeZone`), newest year first, then by scheme. */
export function yearTotalsOf(records: readonly CreditRecord[], timeZone: string): YearTotal[] {
  const sums = new Map<string, YearTotal>();
  for (const r of records) {
    if (!isCounted(r)) continue;
    const year = zonedYear(r.earnedAt, timeZone);
    const key = `${year} ${r.scheme}`;
    const total = sums.get(key) ?? { scheme: r.scheme, year, amount: 0 };
    total.amount += r.amount;
    sums.set(key, total);
  }
  return [...sums.values()]
    .map((t) => ({ ...t, amount: round2(t.amount) }))
    .sort((a, b) => b.year - a.year || a.scheme.localeCompare(b.scheme));
}

/** Counted credits per scheme over all years, by scheme: what the member has earned in all. */
export function schemeTotalsOf(records: readonly CreditRecord[]): { scheme: string; amount: number }[] {
  const sums = new Map<string, number>();
  for (const r of records) if (isCounted(r)) sums.set(r.scheme, (sums.get(r.scheme) ?? 0) + r.amount);
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([scheme, amount]) => ({ scheme, amount: round2(amount) }));
}

/** Counted credits of `scheme` earned from `from` up to `now` (both included). */
export function earnedBetween(records: readonly CreditRecord[], scheme: string, from: Date, now: Date): number {
  let sum = 0;
  for (const r of records) {
    if (!isCounted(r) || r.scheme !== scheme) continue;
    const t = r.earnedAt.getTime();
    if (t >= from.getTime() && t <= now.getTime()) sum += r.amount;
  }
  return round2(sum);
}

/** A target as readTargets reads it (raw: a three-table join; the amount as float8). */
type TargetRow = Pick<RawSelect<typeof creditTargets>, 'scheme' | 'years'> &
  Pick<RawSelect<typeof partners>, 'issuer'> & {
    partner: RawSelect<typeof partners>['name'];
    /** The column is text; the CLI writes only these. */
    period: TargetPeriod;
    amount: number;
  };

/** The targets of the partners the member holds an identity with (active partners only). */
async function readTargets(db: Db, userId: string): Promise<TargetRow[]> {
  return typedRows<TargetRow>(
    db,
    sql`
    select p.name as partner, p.issuer, t.scheme, t.period, t.years, t.amount::float8 as amount
    from identities i join partners p on p.issuer = i.issuer and p.is_active join credit_targets t on t.partner_id = p.id
    where i.user_id = ${userId}
    order by p.name, p.issuer, t.scheme, t.period, t.years`,
  );
}

/** A member's records, totals and target progress at `now`: two statements (records, targets). */
export async function memberCredits(db: Db, userId: string, now: Date, timeZone: string): Promise<MemberCredits> {
  const [records, targetRows] = await Promise.all([readRecords(db, sql`cr.user_id = ${userId}`, now), readTargets(db, userId)]);
  const targets: TargetProgress[] = targetRows.map((t) => {
    const from = t.period === 'calendar_year' ? yearStart(now, timeZone) : rollingStart(now, t.years, timeZone);
    return {
      partner: t.partner,
      issuer: t.issuer,
      scheme: t.scheme,
      period: t.period,
      years: t.years,
      target: Number(t.amount),
      earned: earnedBetween(records, t.scheme, from, now),
      from,
    };
  });
  const windows = new Map<string, Set<number>>();
  for (const r of records) if (!windows.has(r.scheme)) windows.set(r.scheme, new Set([DEFAULT_ROLLING_YEARS]));
  for (const t of targetRows) {
    if (t.period !== 'rolling') continue;
    const set = windows.get(t.scheme) ?? new Set([DEFAULT_ROLLING_YEARS]);
    set.add(t.years);
    windows.set(t.scheme, set);
  }
  const rollingTotals: RollingTotal[] = [...windows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([scheme, years]) =>
      [...years]
        .sort((a, b) => a - b)
        .map((y) => {
          const from = rollingStart(now, y, timeZone);
          return { scheme, years: y, from, amount: earnedBetween(records, scheme, from, now) };
        }),
    );
  return { records, yearTotals: yearTotalsOf(records, timeZone), rollingTotals, targets };
}

// ---------------------------------------------------------------------------------------------
// A partner reading its members' records

export interface PartnerMemberCredits {
  membershipId: string;
  userId: string;
  name: string;
  records: CreditRecord[];
  yearTotals: YearTotal[];
}

export interface PartnerCreditsPage {
  members: PartnerMemberCredits[];
  total: number;
}

/**
 * The credit records of one page of a partner's members: the accounts holding an identity of
 * `issuer` (and only those), named by their membershipId at that partner, ordered by it (then the
 * account id: stable across pages). Three statements whatever the page size: the count, the
 * page of members, every record of those members.
 */
export async function partnerMemberCredits(
  db: Db,
  issuer: string,
  query: { page: number; limit: number; membershipId?: string },
  now: Date,
  timeZone: string,
): Promise<PartnerCreditsPage> {
  const only = query.membershipId === undefined ? sql`` : sql` and i.membership_id = ${query.membershipId}`;
  const offset = (query.page - 1) * query.limit;
  const [counted, members] = await Promise.all([
    typedRows<{ n: number }>(db, sql`select count(*)::int as n from identities i where i.issuer = ${issuer}${only}`),
    typedRows<Pick<RawSelect<typeof identities>, 'membershipId' | 'userId'> & Pick<RawSelect<typeof users>, 'name'>>(
      db,
      sql`
      select i.membership_id as "membershipId", i.user_id as "userId", u.name
      from identities i join users u on u.id = i.user_id
      where i.issuer = ${issuer}${only}
      order by i.membership_id, i.user_id
      limit ${query.limit} offset ${offset}`,
    ),
  ]);
  const total = Number(counted[0]?.n ?? 0);
  if (members.length === 0) return { members: [], total };
  const records = await creditRecordsOf(
    db,
    members.map((m) => m.userId),
    now,
  );
  const byUser = new Map<string, CreditRecord[]>();
  for (const r of records) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r]);
  return {
    total,
    members: members.map((m) => {
      const own = byUser.get(m.userId) ?? [];
      return { membershipId: m.membershipId, userId: m.userId, name: m.name, records: own, yearTotals: yearTotalsOf(own, timeZone) };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// CSV export

/**
 * The CSV file of a member's records: UTF-8 with a byte-order mark (without it Excel reads the
 * file in the machine's code page and garbles names such as “Ni Made Ayu Pradnyaswarī”),
 * CRLF line ends (RFC 4180), dates as ISO days in the deployment's zone, in the dialect given.
 * Voided records are listed with their status; they are not credits in force.
 */
export function creditsCsv(
  credits: MemberCredits,
  timeZone: string,
  headers: readonly string[],
  statusText: (r: CreditRecord) => string,
  dialect: CsvDialect,
): string {
  const day = (d: Date) => {
    const p = zonedParts(d, timeZone);
    return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
  };
  let out = `\uFEFF${csvLine(headers, dialect)}`;
  for (const r of credits.records) {
    out += csvLine([day(r.earnedAt), r.courseName, r.scheme, r.amount, r.certificateCode, statusText(r)], dialect);
  }
  return out;
}
