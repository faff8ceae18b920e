import type { CourseDocument, CourseDocumentOut } from '@lms/contracts';
import type { Db } from '@lms/db';
import { ForbiddenError } from '../../errors.js';
import { courseAccreditationList, mayAccredit } from '../evidence/accreditations.js';
import type { Author } from './authors.js';

// A course document's accreditations (docs/authoring.md, "Accreditations in a document"): exported
// read-only. Only an admin of the course's institution or a super_admin records accreditations,
// and only through their own routes (domain/evidence/accreditations.ts, with its bounds), so a
// document never writes them: one that changes them is a 403 for a teacher or a partner, and an
// admin's import leaves them as they are and says so.

type DocumentAccreditation = CourseDocumentOut['accreditations'][number];

/** The course's accreditations as its document writes them. */
export async function documentAccreditationsOf(db: Db, courseId: number): Promise<DocumentAccreditation[]> {
  const list = await courseAccreditationList(db, courseId);
  return list.map((a) => ({
    scheme: a.scheme,
    reference: a.reference,
    validFrom: a.validFrom.toISOString(),
    validUntil: a.validUntil === null ? null : a.validUntil.toISOString(),
    value: a.value,
    professions: a.professions,
  }));
}

/** One accreditation as compared: the same decision whatever the date's spelling or the order. */
function keyOf(a: NonNullable<CourseDocument['accreditations']>[number]): string {
  const day = (v: string | null) => (v === null ? null : Number.isNaN(Date.parse(v)) ? v : new Date(v).toISOString());
  return JSON.stringify([a.scheme, a.reference.trim(), day(a.validFrom), day(a.validUntil), a.value, a.professions.map((p) => p.trim())]);
}

export const IGNORED_ACCREDITATIONS =
  "accreditations: a document does not change them (record one with POST /api/courses/{id}/accreditations, change or end one with PATCH /api/courses/{id}/accreditations/{accreditationId}); the course's are as they were";

/**
 * Checks a document's accreditations against the course's (`current`; none for a new course):
 * left out or the same, nothing to say; changed, a 403 for a teacher or partner, and for an admin
 * or super_admin the note the answer gives in `ignored`.
 */
export function checkDocumentAccreditations(
  author: Author,
  current: readonly DocumentAccreditation[],
  sent: CourseDocument['accreditations'],
): string[] {
  if (sent === undefined) return [];
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((k, i) => k === b[i]);
  if (same(current.map(keyOf).sort(), sent.map(keyOf).sort())) return [];
  if (!mayAccredit(author)) {
    throw new ForbiddenError(
      `The document changes the course's accreditations, which only an admin of the course's institution or a super_admin records ` +
        `(POST /api/courses/{id}/accreditations): send them as exported, or leave accreditations out`,
    );
  }
  return [IGNORED_ACCREDITATIONS];
}
