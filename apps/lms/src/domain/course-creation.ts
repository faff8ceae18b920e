import { type CreateCourseBody, type CreatedCourse, OPEN_ENDED_END_DATE } from '@lms/contracts';
import { courses, type Db } from '@lms/db';
import { type Author, type AuthoringContext, assertMayCreateFor } from './authoring/authors.js';
import { recorded, recordChange } from './authoring/history.js';

/**
 * Creates a course for a partner, always as a draft (isPublished false), after the partner's
 * rights (assertMayCreateFor: an institution bound to it, an active teacher of it as the owner;
 * otherwise a 403 naming the institution), and records the creation as the first event of the
 * course's history (`course.create`: the partner, its token's `sub` and `jti`, the fields given).
 * `db` may be a transaction: the course and its record commit together.
 */
export async function createDraftCourse(
  db: Db,
  ctx: AuthoringContext & { author: Extract<Author, { kind: 'partner' }> },
  input: CreateCourseBody,
): Promise<CreatedCourse> {
  await assertMayCreateFor(db, ctx.author, input.institutionId, input.teacherId);

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
  await recordChange(db, ctx, {
    courseId: row.id,
    action: 'course.create',
    changes: [{ path: '', to: Object.fromEntries(Object.entries(input).map(([field, value]) => [field, recorded(value)])) }],
  });
  // The record's dates and cover are strings (the spec's types), settled as the catalog list
  // settles them: no start date reads as the creation time, no end date as OPEN_ENDED_END_DATE.
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
    endDate: row.endDate ? row.endDate.toISOString() : OPEN_ENDED_END_DATE,
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
