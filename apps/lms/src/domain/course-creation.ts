import type { CreateCourseBody, CreatedCourse } from '@lms/contracts';
import { courses, type Db, partnerInstitutions, partners, users } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ForbiddenError } from '../errors.js';

/**
 * Creates a course for a partner, always as a draft (isPublished false), after the partner's
 * rights (DESIGN §5, "Partners and institutions"): the institution must be one an operator bound
 * to the partner (`lms-admin partner bind`), and the teacher an active teacher of it. Either
 * failure is a 403 naming the institution; an unknown institution reads as an unbound one and an
 * unknown teacher as a teacher of another institution, so a partner cannot probe ids, and the
 * teacher is judged only within an institution the partner serves. `db` may be a transaction.
 */
export async function createDraftCourse(db: Db, partnerIssuer: string, input: CreateCourseBody): Promise<CreatedCourse> {
  // Both rights in one round trip.
  const result = await db.execute<{ bound: boolean; teacher: boolean }>(sql`
    select
      exists (
        select 1 from ${partnerInstitutions} pi join ${partners} p on p.id = pi.partner_id
        where p.issuer = ${partnerIssuer} and pi.institution_id = ${input.institutionId}
      ) as bound,
      exists (
        select 1 from ${users} u
        where u.id = ${input.teacherId} and u.role = 'teacher' and u.is_active and u.institution_id = ${input.institutionId}
      ) as teacher`);
  const rights = result.rows[0];
  if (!rights?.bound) {
    throw new ForbiddenError(`Partner ${partnerIssuer} may not create courses for institution ${input.institutionId}`);
  }
  if (!rights.teacher) {
    throw new ForbiddenError(`teacherId ${input.teacherId} is not an active teacher of institution ${input.institutionId}`);
  }

  const [row] = await db
    .insert(courses)
    .values({
      institutionId: input.institutionId,
      name: input.name,
      teacherId: input.teacherId,
      courseCode: input.courseCode ?? '',
      coverPicture: input.coverPicture ?? null,
      currency: input.currency ?? 'IDR',
      description: input.description ?? '',
      startDate: input.startDate ? new Date(input.startDate) : null,
      endDate: input.endDate ? new Date(input.endDate) : null,
      enrollmentType: input.enrollmentType,
      instructor: input.instructor ?? '',
      isPurchasable: input.isPurchasable ?? true,
      previewMode: input.previewMode ?? false,
      price: input.price ?? '0',
      type: input.type,
      isPublished: false,
    })
    .returning();
  if (!row) throw new Error('course insert returned nothing');
  // The record's dates and cover are strings (the spec's types), settled as the catalog list
  // settles them: no start date reads as the creation time, no end date as the start date.
  const startDate = (row.startDate ?? row.createdAt).toISOString();
  return {
    id: row.id,
    institutionId: row.institutionId,
    name: row.name,
    teacherId: row.teacherId,
    courseCode: row.courseCode,
    coverPicture: row.coverPicture ?? '',
    currency: row.currency,
    description: row.description,
    startDate,
    endDate: row.endDate ? row.endDate.toISOString() : startDate,
    enrollmentType: row.enrollmentType,
    instructor: row.instructor,
    isPurchasable: row.isPurchasable,
    previewMode: row.previewMode,
    price: row.price,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
