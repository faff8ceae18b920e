import { courses } from '@lms/db';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';

/**
 * The course's own fields that the catalog's answers (list and detail) and the learner's pages show
 * exactly as stored: both statements select them from here and pass them through unchanged, so a
 * new field of this kind is one line here (CONTRIBUTING, "A field from the database to the
 * learner's page"). A field that needs converting (dates, money) or a rule (who may read it) is
 * written out where it is converted, not here.
 */
export const passThroughCourseColumns = {
  admissions: courses.admissions,
  academics: courses.academics,
  tuitionAndFinancing: courses.tuitionAndFinancing,
  careers: courses.careers,
  studentExperience: courses.studentExperience,
};

export type PassThroughCourseFields = SelectResultFields<typeof passThroughCourseColumns>;

const PASS_THROUGH_KEYS = Object.keys(passThroughCourseColumns) as (keyof PassThroughCourseFields)[];

/** The pass-through fields of a selected row, as the answer carries them. */
export function passThroughCourseFields(row: PassThroughCourseFields): PassThroughCourseFields {
  const out: Partial<Record<keyof PassThroughCourseFields, unknown>> = {};
  for (const key of PASS_THROUGH_KEYS) out[key] = row[key];
  return out as PassThroughCourseFields;
}
