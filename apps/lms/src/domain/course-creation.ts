import type { CreateCourseBody, CreatedCourse } from '@lms/contracts';
import { courses, type Db, institutions, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import { UnprocessableError } from '../errors.js';

/**
 * Creates a course for a partner, always as a draft (isPublished false). The institution must
 * exist, and the teacher must exist, be an active teacher and belong to that institution.
 */
export async function createDraftCourse(db: Db, input: CreateCourseBody): Promise<CreatedCourse> {
  const [institution] = await db
    .select({ id: institutions.id })
    .from(institutions)
    .where(eq(institutions.id, input.institutionId))
    .limit(1);
  if (!institution) throw new UnprocessableError(`institutionId ${input.institutionId}: no such institution`);

  const [teacher] = await db
    .select({ role: users.role, institutionId: users.institutionId, isActive: users.isActive })
    .from(users)
    .where(eq(users.id, input.teacherId))
    .limit(1);
  if (!teacher) throw new UnprocessableError(`teacherId ${input.teacherId}: no such user`);
  if (teacher.role !== 'teacher') throw new UnprocessableError(`teacherId ${input.teacherId}: the user is not a teacher`);
  if (!teacher.isActive) throw new UnprocessableError(`teacherId ${input.teacherId}: the teacher is deactivated`);
  if (teacher.institutionId !== input.institutionId) {
    throw new UnprocessableError(`teacherId ${input.teacherId}: the teacher does not belong to institution ${input.institutionId}`);
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
  return {
    id: row.id,
    institutionId: row.institutionId,
    name: row.name,
    teacherId: row.teacherId,
    courseCode: row.courseCode,
    coverPicture: row.coverPicture,
    currency: row.currency,
    description: row.description,
    startDate: row.startDate?.toISOString() ?? null,
    endDate: row.endDate?.toISOString() ?? null,
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
