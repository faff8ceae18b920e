import { CREDIT_SCHEME } from '@lms/contracts/lists';
import { CREDIT_ROUNDINGS, type CreditRounding, creditSchemes, type Db, type EvaluationItem } from '@lms/db';
import { asc, eq, sql } from 'drizzle-orm';
import { UnprocessableError } from '../../errors.js';
import type { CreditScheme } from './requirements.js';

// Credit schemes as data (docs/authoring.md, "Credit schemes"): read them, and an operator's
// add or change (`lms-admin scheme set`, the super_admin page). Every bound is checked here with
// a message naming it, before the table's own checks would refuse the row.

/** What an operator may set of a scheme (everything but builtIn). */
export type SchemeInput = Omit<CreditScheme, 'builtIn'>;

const columns = {
  code: creditSchemes.code,
  body: creditSchemes.body,
  unit: creditSchemes.unit,
  minutesPerUnit: creditSchemes.minutesPerUnit,
  rounding: creditSchemes.rounding,
  maxPerCourse: creditSchemes.maxPerCourse,
  requiresPreTest: creditSchemes.requiresPreTest,
  postTestMinScore: creditSchemes.postTestMinScore,
  requiresEvaluation: creditSchemes.requiresEvaluation,
  minMinutesShare: creditSchemes.minMinutesShare,
  minAttendanceShare: creditSchemes.minAttendanceShare,
  evaluationItems: creditSchemes.evaluationItems,
  builtIn: creditSchemes.builtIn,
};

/** Every scheme, by code. */
export async function listSchemes(db: Db): Promise<CreditScheme[]> {
  return db.select(columns).from(creditSchemes).orderBy(asc(creditSchemes.code));
}

/** One scheme, or null. */
export async function readScheme(db: Db, code: string): Promise<CreditScheme | null> {
  if (!CREDIT_SCHEME.test(code)) return null;
  const [row] = await db.select(columns).from(creditSchemes).where(eq(creditSchemes.code, code));
  return row ?? null;
}

const between = (v: number | null, lo: number, hi: number) => v === null || (Number.isInteger(v) && v >= lo && v <= hi);
const ITEM_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/** The problems of a scheme an operator sends (empty: it may be stored). */
export function schemeProblems(s: SchemeInput): string[] {
  const problems: string[] = [];
  if (!CREDIT_SCHEME.test(s.code)) problems.push(`code must match ${CREDIT_SCHEME.source} (e.g. SKP-KEMENKES)`);
  if (s.body.trim().length < 1 || s.body.length > 200) problems.push('body must be 1-200 characters');
  if (s.unit.trim().length < 1 || s.unit.length > 20) problems.push('unit must be 1-20 characters');
  if (!between(s.minutesPerUnit, 1, 600)) problems.push('minutesPerUnit must be a whole number 1-600, or none');
  if (!(CREDIT_ROUNDINGS as readonly string[]).includes(s.rounding))
    problems.push(`rounding must be one of ${CREDIT_ROUNDINGS.join(', ')}`);
  if (
    !(
      Number.isFinite(s.maxPerCourse) &&
      s.maxPerCourse > 0 &&
      s.maxPerCourse <= 1000 &&
      Math.round(s.maxPerCourse * 100) === s.maxPerCourse * 100
    )
  ) {
    problems.push('maxPerCourse must be more than 0 and at most 1000 (two decimals)');
  }
  if (!between(s.postTestMinScore, 0, 100)) problems.push('postTestMinScore must be a whole number 0-100, or none');
  if (!between(s.minMinutesShare, 1, 100)) problems.push('minMinutesShare must be a whole number 1-100, or none');
  if (!between(s.minAttendanceShare, 1, 100)) problems.push('minAttendanceShare must be a whole number 1-100, or none');
  if (s.evaluationItems !== null) {
    if (s.evaluationItems.length < 1 || s.evaluationItems.length > 20) problems.push('evaluationItems must be 1-20 items, or none');
    const keys = new Set<string>();
    for (const [i, item] of s.evaluationItems.entries()) {
      if (!ITEM_KEY.test(item.key)) problems.push(`evaluationItems[${i}].key must match ${ITEM_KEY.source}`);
      if (keys.has(item.key)) problems.push(`evaluationItems[${i}].key ${item.key} is repeated`);
      keys.add(item.key);
      for (const lang of ['id', 'en'] as const) {
        const t = item[lang];
        if (typeof t !== 'string' || t.trim().length < 1 || t.length > 300)
          problems.push(`evaluationItems[${i}].${lang} must be 1-300 characters`);
      }
    }
  }
  return problems;
}

/**
 * Adds or changes a scheme (422 naming every problem). A shipped scheme an operator changes stays
 * built-in (the migration never overwrites it: `on conflict do nothing`).
 */
export async function upsertScheme(db: Db, s: SchemeInput, now: Date): Promise<CreditScheme> {
  const problems = schemeProblems(s);
  if (problems.length > 0) throw new UnprocessableError(`The scheme cannot be stored: ${problems.join('; ')}`);
  const values = {
    code: s.code,
    body: s.body.trim(),
    unit: s.unit.trim(),
    minutesPerUnit: s.minutesPerUnit,
    rounding: s.rounding as CreditRounding,
    maxPerCourse: s.maxPerCourse,
    requiresPreTest: s.requiresPreTest,
    postTestMinScore: s.postTestMinScore,
    requiresEvaluation: s.requiresEvaluation,
    minMinutesShare: s.minMinutesShare,
    minAttendanceShare: s.minAttendanceShare,
    evaluationItems: s.evaluationItems as EvaluationItem[] | null,
  };
  const { code: _code, ...changes } = values;
  const [row] = await db
    .insert(creditSchemes)
    .values(values)
    .onConflictDoUpdate({ target: creditSchemes.code, set: { ...changes, updatedAt: now } })
    .returning(columns);
  if (!row) throw new Error('the scheme upsert returned no row');
  return row;
}

/** Courses accredited in a scheme (shown before a change of its bounds). */
export async function schemeUse(db: Db, code: string): Promise<number> {
  const { rows } = await db.execute(sql`select count(distinct course_id)::int as n from course_accreditations where scheme = ${code}`);
  return (rows[0] as { n: number }).n;
}
