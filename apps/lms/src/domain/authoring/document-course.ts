import {
  type CourseDocument,
  type CourseDocumentFields,
  type CourseFieldsOut,
  type CoursePatchBody,
  DEFAULT_CREDIT_SCHEME,
} from '@lms/contracts';
import { courses, type Db, inTransaction, typedRows } from '@lms/db';
import { eq, sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, invalidBody } from '../../errors.js';
import { type AuthoringContext, type CourseRow, lockAuthoredCourse } from './authors.js';
import { changedFields, recordChange } from './history.js';
import { assertVersion } from './versions.js';

// A course's own fields (everything but its modules, chapters and quizzes): how a row reads as
// the document's `course`, the defaults a document leaves out, the checks every write of them
// makes (shown credit, category, final exam's pass mark), and the field update itself.

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/** A course row's fields as the document writes them. */
export function courseFieldsOf(row: CourseRow): CourseFieldsOut {
  return {
    institutionId: row.institution_id,
    teacherId: row.teacher_id,
    name: row.name,
    description: row.description,
    instructor: row.instructor,
    courseCode: row.course_code,
    type: row.type,
    enrollmentType: row.enrollment_type,
    enrollmentCode: row.enrollment_code,
    startDate: iso(row.start_date),
    endDate: iso(row.end_date),
    categoryId: row.category_id,
    eventCode: row.event_code,
    nilaiKum: row.nilai_kum === null ? null : Number(row.nilai_kum),
    minPassingScore: row.min_passing_score,
    postTestMinScore: row.post_test_min_score,
    evaluationItems: row.evaluation_items,
    creditScheme: row.credit_scheme,
    certificateValidMonths: row.certificate_valid_months,
    coverPicture: row.cover_picture,
    previewMode: row.preview_mode,
    isPurchasable: row.is_purchasable,
    price: row.price,
    priceNonMember: row.price_non_member,
    priceMahasiswa: row.price_mahasiswa,
    currency: row.currency,
    admissions: row.admissions as CourseFieldsOut['admissions'],
    academics: row.academics as CourseFieldsOut['academics'],
    tuitionAndFinancing: row.tuition_and_financing as CourseFieldsOut['tuitionAndFinancing'],
    careers: row.careers as CourseFieldsOut['careers'],
    studentExperience: row.student_experience as CourseFieldsOut['studentExperience'],
  };
}

/** The defaults of a course's fields (those of course creation): what a document leaves out is set to these. */
export const FIELD_DEFAULTS = {
  description: '',
  instructor: '',
  courseCode: '',
  type: 'self_paced',
  enrollmentType: 'code',
  enrollmentCode: null,
  startDate: null,
  endDate: null,
  categoryId: null,
  eventCode: null,
  nilaiKum: null,
  minPassingScore: 70,
  postTestMinScore: null,
  evaluationItems: null,
  creditScheme: DEFAULT_CREDIT_SCHEME,
  certificateValidMonths: null,
  coverPicture: null,
  previewMode: false,
  isPurchasable: true,
  price: '0',
  priceNonMember: null,
  priceMahasiswa: null,
  currency: 'IDR',
  admissions: null,
  academics: null,
  tuitionAndFinancing: null,
  careers: null,
  studentExperience: null,
} as const;

/** Column values of the courses table for these fields (Drizzle's names). */
export function courseValues(fields: CoursePatchBody) {
  const { startDate, endDate, ...rest } = fields;
  return {
    ...rest,
    ...(startDate === undefined ? {} : { startDate: startDate === null ? null : new Date(startDate) }),
    ...(endDate === undefined ? {} : { endDate: endDate === null ? null : new Date(endDate) }),
  };
}

/**
 * nilaiKum is what the catalog shows of the course's accreditations (domain/evidence/accreditations.ts
 * keeps it): a write that sends it unchanged passes (a round-tripped document, the studio's form),
 * one that changes it is refused: 403 for a teacher or partner (an admin records accreditations),
 * 409 for an admin or super_admin (record the accreditation instead).
 */
export function assertShownCreditUnchanged(author: AuthoringContext['author'], current: unknown, sent: number | null | undefined): void {
  if (sent === undefined) return;
  const now = current === null || current === undefined ? null : Number(current);
  if (now === sent) return;
  const admin = author.kind === 'session' && (author.role === 'admin' || author.role === 'super_admin');
  if (!admin) {
    throw new ForbiddenError(
      `nilaiKum is the value of the course's accreditations (${now ?? 'none'}), not set by authoring: an admin of the course's institution or a super_admin records accreditations (POST /api/courses/:id/accreditations)`,
    );
  }
  throw new ConflictError(
    `nilaiKum follows the course's accreditations (${now ?? 'none'}): record or change an accreditation (POST /api/courses/:id/accreditations) instead of writing nilaiKum`,
  );
}

/** 400 when a category named by a write does not exist (the foreign key would make it a 500). */
export async function assertCategoryExists(tx: Db, categoryId: number | null | undefined, path: string): Promise<void> {
  if (categoryId === null || categoryId === undefined) return;
  const { rows } = await tx.execute(sql`select 1 from categories where id = ${categoryId}`);
  if (rows.length === 0) throw invalidBody([{ path, message: `no category ${categoryId}` }]);
}

/**
 * Changes a course's own fields (the ones given). The merged dates must stay in order (400 naming
 * endDate, as the body's own check does when both are sent).
 */
export async function updateCourseFields(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
  patch: CoursePatchBody,
  expectedVersion?: number,
): Promise<CourseRow> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    assertVersion('course', expectedVersion, course.version, course);
    assertShownCreditUnchanged(ctx.author, course.nilai_kum, patch.nilaiKum);
    await assertCategoryExists(tx, patch.categoryId, 'categoryId');
    const before = courseFieldsOf(course);
    const start = patch.startDate === undefined ? before.startDate : patch.startDate;
    const end = patch.endDate === undefined ? before.endDate : patch.endDate;
    if (start && end && Date.parse(end) < Date.parse(start)) {
      throw invalidBody([{ path: 'endDate', message: `must not be before startDate (${start})` }]);
    }
    await tx.update(courses).set(courseValues(patch)).where(eq(courses.id, courseId));
    const changes = changedFields('course', before, courseFieldsOf(await readCourse(tx, courseId)));
    await recordChange(tx, ctx, { courseId, action: 'course.update', changes });
    if (changes.length > 0) await tx.execute(sql`update courses set version = version + 1 where id = ${courseId}`);
    return readCourse(tx, courseId);
  });
}

/** The course row as authoring reads it (CourseRow: raw `select *`, like findAuthoredCourse). */
export async function readCourse(db: Db, courseId: number): Promise<CourseRow> {
  const [row] = await typedRows<CourseRow>(db, sql`select * from courses where id = ${courseId}`);
  return row;
}

/** The course's minPassingScore as the document sets it (left out: the default). */
export function passMarkOfDocument(doc: CourseDocument): number {
  return doc.course.minPassingScore ?? FIELD_DEFAULTS.minPassingScore;
}

/**
 * 400 when the document's final exam names a pass mark of its own that is not the course's: the
 * final exam is graded by course.minPassingScore (rules/pass-mark.ts), so two numbers would leave
 * one of them a lie. Left out, or the same, is fine (an export writes the same).
 */
export function assertFinalPassMark(doc: CourseDocument): void {
  const own = doc.finalExam?.minimumScore;
  const mark = passMarkOfDocument(doc);
  if (own !== undefined && own !== mark) {
    throw invalidBody([
      {
        path: 'finalExam.minimumScore',
        message: `the final exam's pass mark is the course's minPassingScore (${mark}): give ${mark} or leave it out`,
      },
    ]);
  }
}

/** A document's course fields without the owner, every field it leaves out at its default. */
export function withoutOwner(fields: CourseDocumentFields): CoursePatchBody {
  const { institutionId: _i, teacherId: _t, ...rest } = fields;
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  return { ...FIELD_DEFAULTS, ...given } as CoursePatchBody;
}
