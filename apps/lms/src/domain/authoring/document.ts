import { COURSE_DOCUMENT_FORMAT, type CourseDocument, type CourseDocumentOut, type QuizOut } from '@lms/contracts';
import { courses, type Db, inTransaction } from '@lms/db';
import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { invalidBody } from '../../errors.js';
import { type AuthoringContext, assertMayCreateFor, type CourseRow, findAuthoredCourse, lockAuthoredCourse } from './authors.js';
import {
  assertCategoryExists,
  assertFinalPassMark,
  assertShownCreditUnchanged,
  courseFieldsOf,
  courseValues,
  readCourse,
  withoutOwner,
} from './document-course.js';
import { checkDocumentAccreditations, documentAccreditationsOf } from './document-accreditations.js';
import { assertDocumentEvidenceRoles } from './evidence-roles.js';
import { assertIdsBelong, countsSummary, emptyTree, existingTree, withoutIds, writeTree } from './document-tree.js';
import { type Change, changedFields, recordChange } from './history.js';
import { StaleDocumentError } from './versions.js';
import { bankOf, writeBank } from './question-bank.js';
import { quizJson } from './rows.js';

// The course as one document: export (the author's view, keys included) and import (a new
// course, or a replace of one), each validated whole before anything is written. The course's
// own fields are document-course.ts's; the tree of modules, chapters and quizzes document-tree.ts's.

export { assertShownCreditUnchanged, courseFieldsOf, updateCourseFields } from './document-course.js';

/** The whole course as its document (the author's view: every id, every answer key), in one statement. */
export async function exportCourse(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
): Promise<{ course: CourseRow; document: CourseDocumentOut }> {
  const course = await findAuthoredCourse(db, ctx.author, { course: courseId });
  return { course, document: await documentOf(db, course) };
}

export async function documentOf(db: Db, course: CourseRow): Promise<CourseDocumentOut> {
  const { rows } = await db.execute(sql`
    select
      coalesce((select json_agg(json_build_object('id', m.id, 'name', m.name, 'description', m.description,
          'quiz', (select ${quizJson('q')} from quizzes q where q.course_id = m.course_id and q.scope = 'module' and q.module_id = m.id
            order by q.id limit 1),
          'chapters', coalesce((select json_agg(json_build_object('id', ch.id, 'name', ch.name, 'content', ch.content,
              'expectedMinutes', ch.expected_minutes,
              'quiz', (select ${quizJson('q')} from quizzes q where q.course_id = ch.course_id and q.scope = 'chapter' and q.chapter_id = ch.id
                order by q.id limit 1)) order by ch.order_index, ch.id)
            from chapters ch where ch.course_id = m.course_id and ch.module_id = m.id), '[]'::json))
        order by m.order_index, m.id) from modules m where m.course_id = ${course.id}), '[]'::json) as modules,
      (select ${quizJson('q')} from quizzes q where q.course_id = ${course.id} and q.scope = 'final' order by q.id limit 1) as "finalExam"`);
  const tree = rows[0] as { modules: CourseDocumentOut['modules']; finalExam: QuizOut | null };
  return {
    format: COURSE_DOCUMENT_FORMAT,
    course: courseFieldsOf(course),
    modules: tree.modules,
    finalExam: tree.finalExam,
    accreditations: await documentAccreditationsOf(db, course.id),
    questionBank: await bankOf(db, course.id),
  };
}

/**
 * A new course from a document: the author's right on the institution and the teacher checked,
 * then everything inserted in one transaction (ids in the document are ignored). Unpublished.
 * Its history starts with the event `action` (`course.import`; the studio's new-course form says
 * `course.create`), in the same transaction.
 */
export async function importNewCourse(
  db: Db,
  ctx: AuthoringContext,
  doc: CourseDocument,
  action: 'course.import' | 'course.create' = 'course.import',
): Promise<{ course: CourseRow; document: CourseDocumentOut; ignored?: string[] }> {
  return inTransaction(db, async (tx) => {
    const fields = doc.course;
    await assertMayCreateFor(tx, ctx.author, fields.institutionId, fields.teacherId);
    assertShownCreditUnchanged(ctx.author, null, fields.nilaiKum);
    await assertCategoryExists(tx, fields.categoryId, 'course.categoryId');
    assertFinalPassMark(doc);
    assertDocumentEvidenceRoles(doc);
    const ignored = checkDocumentAccreditations(ctx.author, [], doc.accreditations);
    const [row] = await tx
      .insert(courses)
      .values({
        ...courseValues(withoutOwner(fields)),
        name: fields.name,
        institutionId: fields.institutionId,
        teacherId: fields.teacherId,
      })
      .returning({ id: courses.id });
    const fresh = await readCourse(tx, row.id);
    const counts = await writeTree(tx, fresh, withoutIds(doc), emptyTree());
    // The bank of a new course: every question new (ids in the document are ignored).
    if (doc.questionBank)
      await writeBank(
        tx,
        row.id,
        doc.questionBank.map((q) => ({ ...q, id: undefined })),
        'questionBank',
      );
    const course = await readCourse(tx, row.id);
    await recordChange(tx, ctx, {
      courseId: course.id,
      action,
      changes: [{ path: '', to: { ...countsSummary(counts), name: course.name } }],
    });
    return { course, document: await documentOf(tx, course), ...(ignored.length > 0 ? { ignored } : {}) };
  });
}

/**
 * Replaces a course with a document, all or nothing: ids checked against the course (an id of
 * another course, or one used twice, is a 400 naming its place), the owner checked, the rows the
 * document leaves out deleted unless learners hold them (409), then the fields and the tree
 * written. The institution cannot change.
 */
export async function replaceCourse(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
  doc: CourseDocument,
  expectedTag?: string,
): Promise<{ course: CourseRow; document: CourseDocumentOut; ignored?: string[] }> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    const previous = await documentOf(tx, course);
    if (expectedTag !== undefined && expectedTag !== documentTag(previous))
      throw new StaleDocumentError(expectedTag, documentTag(previous));
    const fields = doc.course;
    if (fields.institutionId !== course.institution_id) {
      throw invalidBody([{ path: 'course.institutionId', message: `a course stays in its institution (${course.institution_id})` }]);
    }
    if (fields.teacherId !== course.teacher_id) await assertMayCreateFor(tx, ctx.author, fields.institutionId, fields.teacherId);
    assertShownCreditUnchanged(ctx.author, course.nilai_kum, fields.nilaiKum);
    await assertCategoryExists(tx, fields.categoryId, 'course.categoryId');
    assertFinalPassMark(doc);
    assertDocumentEvidenceRoles(doc);
    const ignored = checkDocumentAccreditations(ctx.author, previous.accreditations, doc.accreditations);
    const noted = ignored.length > 0 ? { ignored } : {};
    const existing = await existingTree(tx, courseId);
    assertIdsBelong(doc, existing);
    const before = courseFieldsOf(course);
    await tx
      .update(courses)
      .set({ ...courseValues(withoutOwner(fields)), teacherId: fields.teacherId })
      .where(eq(courses.id, courseId));
    const counts = await writeTree(tx, course, doc, existing);
    // Left out of the document, the bank stays as it is.
    if (doc.questionBank !== undefined) await writeBank(tx, courseId, doc.questionBank, 'questionBank');
    const after = await readCourse(tx, courseId);
    const changes: Change[] = changedFields('course', before, courseFieldsOf(after));
    const summary = countsSummary(counts);
    if (Object.values(counts).some((c) => c.created + c.updated + c.deleted > 0)) changes.push({ path: 'tree', to: summary });
    const bank = await bankOf(tx, courseId);
    if (JSON.stringify(bank) !== JSON.stringify(previous.questionBank)) {
      changes.push({ path: 'questionBank', from: { questions: previous.questionBank.length }, to: { questions: bank.length } });
    }
    await recordChange(tx, ctx, { courseId, action: 'course.replace', changes });
    const written = await documentOf(tx, after);
    // The versions the studio and the API check: the course's when the replace changed anything
    // (it rewrites every field), each kept quiz whose settings or questions differ (chapters'
    // versions move in writeChapters).
    if (documentTag(written) === documentTag(previous)) return { course: after, document: written, ...noted };
    const stale = changedQuizIds(previous, written);
    await tx.execute(sql`update courses set version = version + 1 where id = ${courseId}`);
    if (stale.length > 0) {
      await tx.execute(sql`update quizzes set version = version + 1 where course_id = ${courseId} and id in (${sql.join(stale, sql`, `)})`);
    }
    const bumped = await readCourse(tx, courseId);
    return { course: bumped, document: written, ...noted };
  });
}

/**
 * The document's digest: the `ETag` of the document routes. Any write to the course (a field, a
 * module, a chapter, a quiz, the order) changes it; the same document always has the same digest.
 */
export function documentTag(document: unknown): string {
  return `d${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}`;
}

/** The quizzes kept from one document to the next whose settings or questions changed. */
function changedQuizIds(before: CourseDocumentOut, after: CourseDocumentOut): number[] {
  const quizzes = (d: CourseDocumentOut) => {
    const all = [d.finalExam, ...d.modules.flatMap((m) => [m.quiz, ...m.chapters.map((ch) => ch.quiz)])];
    return new Map(all.filter((q): q is QuizOut => q !== null).map((q) => [q.id, JSON.stringify(q)]));
  };
  const was = quizzes(before);
  return [...quizzes(after)].filter(([id, json]) => was.has(id) && was.get(id) !== json).map(([id]) => id);
}
