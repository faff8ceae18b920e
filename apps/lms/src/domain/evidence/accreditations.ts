import { courseAccreditations, type Db, inTransaction, typedRows } from '@lms/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../../errors.js';
import { type Author, type CourseRow, findAuthoredCourse, lockAuthoredCourse } from '../authoring/authors.js';
import { estimatedMinutes, unitsForMinutes } from './requirements.js';
import { readScheme } from './schemes.js';

/**
 * Why an accreditation was refused, for a page to say in its own words (the error's message stays
 * the API's English). `field`: the input at fault, when one is.
 */
export type AccreditationProblem =
  | { code: 'reference' | 'untilBeforeFrom' | 'professions' | 'value' }
  | { code: 'date'; field: 'validFrom' | 'validUntil' }
  | { code: 'unknownScheme'; scheme: string }
  | { code: 'overSchemeMax'; scheme: string; max: number; unit: string }
  | { code: 'overMinutes'; scheme: string; bound: number; unit: string; minutes: number; minutesPerUnit: number }
  | { code: 'duplicate'; scheme: string; reference: string }
  | { code: 'creditsEarned'; earned: number };

/** A 422 of an accreditation's bounds, with its problem. */
export class AccreditationRefusedError extends UnprocessableError {
  constructor(
    message: string,
    readonly problem: AccreditationProblem,
  ) {
    super(message);
  }
}

/** A 409 of an accreditation (a repeated reference, credits earned under it), with its problem. */
export class AccreditationConflictError extends ConflictError {
  constructor(
    message: string,
    readonly problem: AccreditationProblem,
  ) {
    super(message);
  }
}

// A course's accreditations (docs/authoring.md, "Accreditations"): the only source of credit.
// Anyone who may author the course reads them; only an admin of the course's institution or a
// super_admin records, changes or ends one, and its value is bounded by the scheme (its maximum
// per course and, when the scheme counts minutes, the units of the course's expected minutes).
// After each write the catalog's shown value (courses.nilai_kum, credit_scheme) becomes the
// accreditation in force with the largest value, or none.

export interface Accreditation {
  id: number;
  courseId: number;
  scheme: string;
  reference: string;
  validFrom: Date;
  validUntil: Date | null;
  value: number;
  professions: string[];
  recordedBy: string | null;
}

export interface AccreditationInput {
  scheme: string;
  reference: string;
  validFrom: string;
  validUntil: string | null;
  value: number;
  professions: string[];
}

export const WHO_ACCREDITS =
  "Accreditations are recorded by an admin of the course's institution or a super_admin: ask them to record the body's decision";

const columns = {
  id: courseAccreditations.id,
  courseId: courseAccreditations.courseId,
  scheme: courseAccreditations.scheme,
  reference: courseAccreditations.reference,
  validFrom: courseAccreditations.validFrom,
  validUntil: courseAccreditations.validUntil,
  value: courseAccreditations.value,
  professions: courseAccreditations.professions,
  recordedBy: courseAccreditations.recordedBy,
};

/** A course's accreditations, oldest first (no right checked: the caller's). */
export async function courseAccreditationList(db: Db, courseId: number): Promise<Accreditation[]> {
  return db
    .select(columns)
    .from(courseAccreditations)
    .where(eq(courseAccreditations.courseId, courseId))
    .orderBy(asc(courseAccreditations.validFrom), asc(courseAccreditations.id));
}

/** An accreditation in force as a course page shows it: the value in the scheme's unit, the body, the reference. */
export interface AccreditationShown {
  scheme: string;
  unit: string;
  body: string;
  reference: string;
  value: number;
  validUntil: Date | null;
}

/** The course's accreditations in force at `at`, largest value first (anyone who may see the course). */
export async function accreditationsInForce(db: Db, courseId: number, at: Date): Promise<AccreditationShown[]> {
  const now = at.toISOString();
  const rows = await typedRows<Omit<AccreditationShown, 'validUntil'> & { validUntil: Date | string | null }>(
    db,
    sql`select a.scheme, s.unit, s.body, a.reference, a.value::float8 as value, a.valid_until as "validUntil"
        from course_accreditations a join credit_schemes s on s.code = a.scheme
        where a.course_id = ${courseId} and a.valid_from <= ${now}::timestamptz
          and (a.valid_until is null or a.valid_until > ${now}::timestamptz)
        order by a.value desc, a.id`,
  );
  return rows.map((r) => ({ ...r, validUntil: r.validUntil === null ? null : new Date(r.validUntil) }));
}

/** The accreditations of a course its author may read (404/403 as every authoring read). */
export async function readAccreditations(db: Db, author: Author, courseId: number): Promise<Accreditation[]> {
  await findAuthoredCourse(db, author, { course: courseId });
  return courseAccreditationList(db, courseId);
}

/** May this author record accreditations? (The course right itself is findAuthoredCourse's.) */
export function mayAccredit(author: Author): boolean {
  return author.kind === 'session' && (author.role === 'admin' || author.role === 'super_admin');
}

async function lockForAccreditation(tx: Db, author: Author, courseId: number): Promise<CourseRow> {
  const course = await lockAuthoredCourse(tx, author, { course: courseId });
  if (!mayAccredit(author)) throw new ForbiddenError(WHO_ACCREDITS);
  return course;
}

/** The course's expected minutes: each chapter's expected_minutes, or its estimate from its content. */
export async function courseExpectedMinutes(db: Db, courseId: number): Promise<number> {
  const rows = await typedRows<{ expected: number | null; content: string }>(
    db,
    sql`select expected_minutes as expected, content from chapters where course_id = ${courseId}`,
  );
  return rows.reduce((sum, r) => sum + (r.expected ?? estimatedMinutes(r.content)), 0);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

function dateOf(value: string, name: 'validFrom' | 'validUntil'): Date {
  const d = new Date(value);
  if (!ISO_DATE.test(value) || Number.isNaN(d.getTime()))
    throw new AccreditationRefusedError(`${name} must be an ISO date, e.g. 2026-01-01`, { code: 'date', field: name });
  return d;
}

function duplicateOf(values: { scheme: string; reference: string }): AccreditationConflictError {
  return new AccreditationConflictError(`The course already has accreditation ${values.reference} in ${values.scheme}`, {
    code: 'duplicate',
    scheme: values.scheme,
    reference: values.reference,
  });
}

/** Checks an accreditation against its scheme and the course; the values to store. */
async function checked(tx: Db, courseId: number, input: AccreditationInput) {
  const reference = input.reference.trim();
  if (reference.length < 1 || reference.length > 200)
    throw new AccreditationRefusedError('reference must be 1-200 characters (the decree or accreditation number)', { code: 'reference' });
  const validFrom = dateOf(input.validFrom, 'validFrom');
  const validUntil = input.validUntil === null ? null : dateOf(input.validUntil, 'validUntil');
  if (validUntil !== null && validUntil <= validFrom)
    throw new AccreditationRefusedError('validUntil must be after validFrom', { code: 'untilBeforeFrom' });
  if (input.professions.length > 20 || input.professions.some((p) => p.trim().length < 1 || p.length > 100)) {
    throw new AccreditationRefusedError('professions must be at most 20 names of 1-100 characters', { code: 'professions' });
  }
  const scheme = await readScheme(tx, input.scheme);
  if (!scheme)
    throw new AccreditationRefusedError(`Unknown credit scheme ${input.scheme}: an operator adds schemes (lms-admin scheme set)`, {
      code: 'unknownScheme',
      scheme: input.scheme,
    });
  const value = input.value;
  if (!(Number.isFinite(value) && value > 0 && Math.round(value * 100) === value * 100)) {
    throw new AccreditationRefusedError('value must be more than 0, with at most two decimals', { code: 'value' });
  }
  if (value > scheme.maxPerCourse) {
    throw new AccreditationRefusedError(
      `value ${value} is over the most a course may be accredited for in ${scheme.code}: ${scheme.maxPerCourse} ${scheme.unit}`,
      { code: 'overSchemeMax', scheme: scheme.code, max: scheme.maxPerCourse, unit: scheme.unit },
    );
  }
  if (scheme.minutesPerUnit !== null) {
    const minutes = await courseExpectedMinutes(tx, courseId);
    const bound = unitsForMinutes(scheme, minutes) ?? 0;
    if (value > bound) {
      throw new AccreditationRefusedError(
        `value ${value} is over ${bound} ${scheme.unit}: ${scheme.code} counts ${scheme.minutesPerUnit} minutes a ${scheme.unit} (rounding ${scheme.rounding}) and the course's chapters expect ${minutes} minutes`,
        { code: 'overMinutes', scheme: scheme.code, bound, unit: scheme.unit, minutes, minutesPerUnit: scheme.minutesPerUnit },
      );
    }
  }
  return { scheme: scheme.code, reference, validFrom, validUntil, value, professions: input.professions.map((p) => p.trim()) };
}

/** Sets the catalog's shown value to the accreditation in force with the largest value (nilai_kum null when none). */
export async function syncShownCredit(tx: Db, courseId: number, now: Date): Promise<void> {
  await tx.execute(sql`
    update courses c set
      nilai_kum = (select a.value from course_accreditations a where a.course_id = c.id
        and a.valid_from <= ${now.toISOString()}::timestamptz and (a.valid_until is null or a.valid_until > ${now.toISOString()}::timestamptz)
        order by a.value desc, a.id limit 1),
      credit_scheme = coalesce((select a.scheme from course_accreditations a where a.course_id = c.id
        and a.valid_from <= ${now.toISOString()}::timestamptz and (a.valid_until is null or a.valid_until > ${now.toISOString()}::timestamptz)
        order by a.value desc, a.id limit 1), c.credit_scheme)
    where c.id = ${courseId}`);
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Records an accreditation (admin of the course's institution or super_admin). */
export async function createAccreditation(
  tx: Db,
  author: Author,
  courseId: number,
  input: AccreditationInput,
  now: Date,
): Promise<Accreditation> {
  await lockForAccreditation(tx, author, courseId);
  const values = await checked(tx, courseId, input);
  const exists = await tx
    .select({ id: courseAccreditations.id })
    .from(courseAccreditations)
    .where(
      and(
        eq(courseAccreditations.courseId, courseId),
        eq(courseAccreditations.scheme, values.scheme),
        eq(courseAccreditations.reference, values.reference),
      ),
    );
  if (exists.length > 0)
    throw new AccreditationConflictError(
      `The course already has accreditation ${values.reference} in ${values.scheme}: change it instead`,
      {
        code: 'duplicate',
        scheme: values.scheme,
        reference: values.reference,
      },
    );
  const [row] = await tx
    .insert(courseAccreditations)
    .values({ courseId, ...values, recordedBy: author.kind === 'session' ? author.userId : null })
    .returning(columns)
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw duplicateOf(values);
      throw err;
    });
  if (!row) throw new Error('the accreditation insert returned no row');
  await syncShownCredit(tx, courseId, now);
  return row;
}

/** createAccreditation in a transaction of its own (the studio's form; the API runs it in its keyed request's). */
export function recordAccreditation(db: Db, author: Author, courseId: number, input: AccreditationInput, now: Date) {
  return inTransaction(db, (tx) => createAccreditation(tx, author, courseId, input, now));
}

/** Where an accreditation stands at `now`: not yet in force, in force, or ended. */
export function accreditationState(a: Pick<Accreditation, 'validFrom' | 'validUntil'>, now: Date): 'pending' | 'inForce' | 'ended' {
  if (a.validFrom > now) return 'pending';
  return a.validUntil !== null && a.validUntil <= now ? 'ended' : 'inForce';
}

async function existing(tx: Db, courseId: number, id: number): Promise<Accreditation> {
  const [row] = await tx
    .select(columns)
    .from(courseAccreditations)
    .where(and(eq(courseAccreditations.id, id), eq(courseAccreditations.courseId, courseId)));
  if (!row) throw new NotFoundError('Accreditation not found');
  return row;
}

/** Changes an accreditation: the fields sent over the stored ones, checked as a new one. */
export async function updateAccreditation(
  tx: Db,
  author: Author,
  courseId: number,
  id: number,
  patch: Partial<AccreditationInput>,
  now: Date,
): Promise<Accreditation> {
  await lockForAccreditation(tx, author, courseId);
  const old = await existing(tx, courseId, id);
  const merged: AccreditationInput = {
    scheme: patch.scheme ?? old.scheme,
    reference: patch.reference ?? old.reference,
    validFrom: patch.validFrom ?? old.validFrom.toISOString(),
    validUntil: patch.validUntil === undefined ? (old.validUntil?.toISOString() ?? null) : patch.validUntil,
    value: patch.value ?? old.value,
    professions: patch.professions ?? old.professions,
  };
  const values = await checked(tx, courseId, merged);
  const [row] = await tx
    .update(courseAccreditations)
    .set({ ...values, recordedBy: author.kind === 'session' ? author.userId : null, updatedAt: now })
    .where(eq(courseAccreditations.id, id))
    .returning(columns)
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw duplicateOf(values);
      throw err;
    });
  if (!row) throw new NotFoundError('Accreditation not found');
  await syncShownCredit(tx, courseId, now);
  return row;
}

/** Removes an accreditation recorded by mistake, while no credit was earned under it (409 then: end it with validUntil). */
export async function deleteAccreditation(tx: Db, author: Author, courseId: number, id: number, now: Date): Promise<{ id: number }> {
  await lockForAccreditation(tx, author, courseId);
  await existing(tx, courseId, id);
  const { rows } = await tx.execute(sql`select count(*)::int as n from credits where accreditation_id = ${id}`);
  const earned = (rows[0] as { n: number }).n;
  if (earned > 0) {
    throw new AccreditationConflictError(
      `${earned} credit(s) were earned under this accreditation: end it with validUntil instead of deleting it`,
      {
        code: 'creditsEarned',
        earned,
      },
    );
  }
  await tx.delete(courseAccreditations).where(eq(courseAccreditations.id, id));
  await syncShownCredit(tx, courseId, now);
  return { id };
}
