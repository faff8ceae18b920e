import { type CreditRounding, type Db, type EvaluationItem, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';

// What a course's credit requires of a learner (docs/authoring.md, "Credit schemes"): the
// strictest of the schemes of the accreditations the course holds at the moment asked, plus what
// the course adds itself (its post-test minimum). A course without an accreditation in force, or
// whose schemes require nothing, requires nothing: it behaves as courses did before evidence.
// Every rule that waits for evidence (a chapter's time, the pre-test gate, the certificate) reads
// this one function.

/** One credit scheme as stored (credit_schemes). */
export interface CreditScheme {
  code: string;
  body: string;
  unit: string;
  minutesPerUnit: number | null;
  rounding: CreditRounding;
  maxPerCourse: number;
  requiresPreTest: boolean;
  postTestMinScore: number | null;
  requiresEvaluation: boolean;
  minMinutesShare: number | null;
  minAttendanceShare: number | null;
  evaluationItems: EvaluationItem[] | null;
  builtIn: boolean;
}

export interface CourseRequirements {
  /** Schemes of the accreditations in force (none: the course requires nothing). */
  schemes: string[];
  requiresPreTest: boolean;
  /** Minimum post-test score, or null: no post-test required. */
  postTestMinScore: number | null;
  requiresEvaluation: boolean;
  /** Percent of each chapter's expected minutes before it may be completed, or null. */
  minMinutesShare: number | null;
  minAttendanceShare: number | null;
}

export const NO_REQUIREMENTS: CourseRequirements = {
  schemes: [],
  requiresPreTest: false,
  postTestMinScore: null,
  requiresEvaluation: false,
  minMinutesShare: null,
  minAttendanceShare: null,
};

/** The standard evaluation items (a scheme's or a course's own replace them). */
export const STANDARD_EVALUATION_ITEMS: EvaluationItem[] = [
  { key: 'material', id: 'Materi sesuai dengan tujuan pembelajaran', en: 'The material matched the learning objectives' },
  {
    key: 'speaker',
    id: 'Narasumber menguasai dan menyampaikan materi dengan baik',
    en: 'The speaker knew and explained the material well',
  },
  { key: 'organisation', id: 'Kegiatan diselenggarakan dengan baik', en: 'The course was well organised' },
  { key: 'relevance', id: 'Materi bermanfaat untuk pekerjaan saya', en: 'The material is useful in my work' },
];

const maxOrNull = (values: (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : Math.max(...present);
};

/** What the course requires of a learner at `at` (one statement). */
export async function courseRequirements(db: Db, courseId: number, at: Date): Promise<CourseRequirements> {
  const rows = await typedRows<{
    scheme: string;
    requiresPreTest: boolean;
    postTestMinScore: number | null;
    requiresEvaluation: boolean;
    minMinutesShare: number | null;
    minAttendanceShare: number | null;
    coursePostTestMinScore: number | null;
  }>(
    db,
    sql`select s.code as scheme, s.requires_pre_test as "requiresPreTest", s.post_test_min_score as "postTestMinScore",
          s.requires_evaluation as "requiresEvaluation", s.min_minutes_share as "minMinutesShare",
          s.min_attendance_share as "minAttendanceShare", c.post_test_min_score as "coursePostTestMinScore"
        from course_accreditations a
        join credit_schemes s on s.code = a.scheme
        join courses c on c.id = a.course_id
        where a.course_id = ${courseId} and a.valid_from <= ${at.toISOString()}::timestamptz
          and (a.valid_until is null or a.valid_until > ${at.toISOString()}::timestamptz)`,
  );
  if (rows.length === 0) return NO_REQUIREMENTS;
  const postTest = maxOrNull(rows.map((r) => r.postTestMinScore));
  return {
    schemes: [...new Set(rows.map((r) => r.scheme))].sort(),
    requiresPreTest: rows.some((r) => r.requiresPreTest),
    // The course may raise the scheme's minimum, never lower it.
    postTestMinScore: postTest === null ? null : Math.max(postTest, rows[0].coursePostTestMinScore ?? 0),
    requiresEvaluation: rows.some((r) => r.requiresEvaluation),
    minMinutesShare: maxOrNull(rows.map((r) => r.minMinutesShare)),
    minAttendanceShare: maxOrNull(rows.map((r) => r.minAttendanceShare)),
  };
}

/**
 * Units a scheme gives for `minutes` (null: the scheme does not count units from minutes), with
 * its rounding: 130 minutes at 45 per JPL are 2 JPL down, 3 to the nearest, 2.5 down to a half.
 */
export function unitsForMinutes(scheme: Pick<CreditScheme, 'minutesPerUnit' | 'rounding'>, minutes: number): number | null {
  if (scheme.minutesPerUnit === null) return null;
  const exact = minutes / scheme.minutesPerUnit;
  switch (scheme.rounding) {
    case 'down':
      return Math.floor(exact);
    case 'nearest':
      return Math.round(exact);
    case 'half':
      return Math.floor(exact * 2) / 2;
  }
}

/** A chapter's expected minutes when its author gave none: reading time at 200 words a minute, at least one minute. */
export function estimatedMinutes(content: string): number {
  const words = content.split(/\s+/).filter((w) => w.length > 0 && !w.startsWith('<')).length;
  return Math.max(1, Math.ceil(words / 200));
}
