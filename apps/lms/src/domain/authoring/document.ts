import {
  COURSE_DOCUMENT_FORMAT,
  DEFAULT_CREDIT_SCHEME,
  type CourseDocument,
  type CourseDocumentFields,
  type CourseDocumentOut,
  type CourseFieldsOut,
  type CoursePatchBody,
  type QuizInput,
  type QuizOut,
} from '@lms/contracts';
import { courses, type Db, inTransaction, typedRows } from '@lms/db';
import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, invalidBody } from '../../errors.js';
import { type AuthoringContext, assertMayCreateFor, type CourseRow, findAuthoredCourse, lockAuthoredCourse } from './authors.js';
import { type Change, changedFields, recordChange } from './history.js';
import { assertVersion, StaleDocumentError } from './versions.js';
import {
  DEFAULT_MINIMUM_SCORE,
  deleteRows,
  lockUnheld,
  type QuizRow,
  quizJson,
  writeChapters,
  writeModules,
  writeQuizzes,
} from './rows.js';

// The course as one document: export (the author's view, keys included) and import (a new
// course, or a replace of one), each validated whole before anything is written.

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
const FIELD_DEFAULTS = {
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
function courseValues(fields: CoursePatchBody) {
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
async function assertCategoryExists(tx: Db, categoryId: number | null | undefined, path: string): Promise<void> {
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
async function readCourse(db: Db, courseId: number): Promise<CourseRow> {
  const [row] = await typedRows<CourseRow>(db, sql`select * from courses where id = ${courseId}`);
  return row;
}

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
  return { format: COURSE_DOCUMENT_FORMAT, course: courseFieldsOf(course), modules: tree.modules, finalExam: tree.finalExam };
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
): Promise<{ course: CourseRow; document: CourseDocumentOut }> {
  return inTransaction(db, async (tx) => {
    const fields = doc.course;
    await assertMayCreateFor(tx, ctx.author, fields.institutionId, fields.teacherId);
    assertShownCreditUnchanged(ctx.author, null, fields.nilaiKum);
    await assertCategoryExists(tx, fields.categoryId, 'course.categoryId');
    assertFinalPassMark(doc);
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
    const course = await readCourse(tx, row.id);
    await recordChange(tx, ctx, {
      courseId: course.id,
      action,
      changes: [{ path: '', to: { ...countsSummary(counts), name: course.name } }],
    });
    return { course, document: await documentOf(tx, course) };
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
): Promise<{ course: CourseRow; document: CourseDocumentOut }> {
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
    const existing = await existingTree(tx, courseId);
    assertIdsBelong(doc, existing);
    const before = courseFieldsOf(course);
    await tx
      .update(courses)
      .set({ ...courseValues(withoutOwner(fields)), teacherId: fields.teacherId })
      .where(eq(courses.id, courseId));
    const counts = await writeTree(tx, course, doc, existing);
    const after = await readCourse(tx, courseId);
    const changes: Change[] = changedFields('course', before, courseFieldsOf(after));
    const summary = countsSummary(counts);
    if (Object.values(counts).some((c) => c.created + c.updated + c.deleted > 0)) changes.push({ path: 'tree', to: summary });
    await recordChange(tx, ctx, { courseId, action: 'course.replace', changes });
    const written = await documentOf(tx, after);
    // The versions the studio and the API check: the course's when the replace changed anything
    // (it rewrites every field), each kept quiz whose settings or questions differ (chapters'
    // versions move in writeChapters).
    if (documentTag(written) === documentTag(previous)) return { course: after, document: written };
    const stale = changedQuizIds(previous, written);
    await tx.execute(sql`update courses set version = version + 1 where id = ${courseId}`);
    if (stale.length > 0) {
      await tx.execute(sql`update quizzes set version = version + 1 where course_id = ${courseId} and id in (${sql.join(stale, sql`, `)})`);
    }
    const bumped = await readCourse(tx, courseId);
    return { course: bumped, document: written };
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

/** The course's minPassingScore as the document sets it (left out: the default). */
function passMarkOfDocument(doc: CourseDocument): number {
  return doc.course.minPassingScore ?? FIELD_DEFAULTS.minPassingScore;
}

/**
 * 400 when the document's final exam names a pass mark of its own that is not the course's: the
 * final exam is graded by course.minPassingScore (rules/pass-mark.ts), so two numbers would leave
 * one of them a lie. Left out, or the same, is fine (an export writes the same).
 */
function assertFinalPassMark(doc: CourseDocument): void {
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
function withoutOwner(fields: CourseDocumentFields): CoursePatchBody {
  const { institutionId: _i, teacherId: _t, ...rest } = fields;
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  return { ...FIELD_DEFAULTS, ...given } as CoursePatchBody;
}

/** The ids a course's rows have now, with where each hangs. */
interface ExistingTree {
  modules: Set<number>;
  chapters: Set<number>;
  quizzes: Set<number>;
  questions: Set<number>;
}

function emptyTree(): ExistingTree {
  return { modules: new Set(), chapters: new Set(), quizzes: new Set(), questions: new Set() };
}

async function existingTree(tx: Db, courseId: number): Promise<ExistingTree> {
  const { rows } = await tx.execute(sql`
    select
      coalesce((select json_agg(id) from modules where course_id = ${courseId}), '[]') as modules,
      coalesce((select json_agg(id) from chapters where course_id = ${courseId}), '[]') as chapters,
      coalesce((select json_agg(id) from quizzes where course_id = ${courseId}), '[]') as quizzes,
      coalesce((select json_agg(qu.id) from questions qu join quizzes q on q.id = qu.quiz_id where q.course_id = ${courseId}), '[]') as questions`);
  const r = rows[0] as Record<keyof ExistingTree, number[]>;
  return { modules: new Set(r.modules), chapters: new Set(r.chapters), quizzes: new Set(r.quizzes), questions: new Set(r.questions) };
}

/** Every id of the document names a row of this course, once; otherwise one 400 naming each place. */
function assertIdsBelong(doc: CourseDocument, existing: ExistingTree): void {
  const problems: { path: string; message: string }[] = [];
  const seen = { modules: new Set<number>(), chapters: new Set<number>(), quizzes: new Set<number>(), questions: new Set<number>() };
  const check = (kind: keyof ExistingTree, id: number | undefined, path: string) => {
    if (id === undefined) return;
    const noun = kind.slice(0, -1);
    if (!existing[kind].has(id)) problems.push({ path, message: `${noun} ${id} is not a ${noun} of this course` });
    else if (seen[kind].has(id)) problems.push({ path, message: `${noun} ${id} appears twice` });
    seen[kind].add(id);
  };
  const checkQuiz = (quiz: QuizInput | null, path: string) => {
    if (!quiz) return;
    check('quizzes', quiz.id, `${path}.id`);
    for (const [i, q] of quiz.questions.entries()) check('questions', q.id, `${path}.questions.${i}.id`);
  };
  doc.modules.forEach((m, i) => {
    check('modules', m.id, `modules.${i}.id`);
    checkQuiz(m.quiz, `modules.${i}.quiz`);
    m.chapters.forEach((ch, j) => {
      check('chapters', ch.id, `modules.${i}.chapters.${j}.id`);
      checkQuiz(ch.quiz, `modules.${i}.chapters.${j}.quiz`);
    });
  });
  checkQuiz(doc.finalExam, 'finalExam');
  if (problems.length > 0) {
    throw invalidBody(problems);
  }
}

/** The document with every id taken out (an import as a new course makes every row anew). */
function withoutIds(doc: CourseDocument): CourseDocument {
  const quiz = (q: QuizInput | null) => (q ? { ...q, id: undefined, questions: q.questions.map((x) => ({ ...x, id: undefined })) } : null);
  return {
    ...doc,
    modules: doc.modules.map((m) => ({
      ...m,
      id: undefined,
      quiz: quiz(m.quiz),
      chapters: m.chapters.map((ch) => ({ ...ch, id: undefined, quiz: quiz(ch.quiz) })),
    })),
    finalExam: quiz(doc.finalExam),
  };
}

type Counts = Record<'modules' | 'chapters' | 'quizzes', { created: number; updated: number; deleted: number }>;

function countsSummary(counts: Counts) {
  return Object.fromEntries(Object.entries(counts).map(([k, c]) => [k, c]));
}

/**
 * Writes a document's tree over the course's (`existing`: its rows now): kept rows updated and
 * moved, new rows inserted, left-out rows deleted unless learners hold them. Quizzes the document
 * drops are deleted before the others are written (a new final exam needs the old one gone), and
 * chapters and modules last (a kept quiz or chapter moves out of them first).
 */
async function writeTree(tx: Db, course: CourseRow, doc: CourseDocument, existing: ExistingTree): Promise<Counts> {
  const inDoc = { modules: new Set<number>(), chapters: new Set<number>(), quizzes: new Set<number>() };
  const quizzesOf = (q: QuizInput | null) => (q?.id !== undefined ? [q.id] : []);
  for (const m of doc.modules) {
    if (m.id !== undefined) inDoc.modules.add(m.id);
    for (const id of quizzesOf(m.quiz)) inDoc.quizzes.add(id);
    for (const ch of m.chapters) {
      if (ch.id !== undefined) inDoc.chapters.add(ch.id);
      for (const id of quizzesOf(ch.quiz)) inDoc.quizzes.add(id);
    }
  }
  for (const id of quizzesOf(doc.finalExam)) inDoc.quizzes.add(id);
  const gone = (kind: 'modules' | 'chapters' | 'quizzes') => [...existing[kind]].filter((id) => !inDoc[kind].has(id));
  const doomed = { modules: gone('modules'), chapters: gone('chapters'), quizzes: gone('quizzes') };

  // Learners' records first: nothing is written if any would be lost (409 naming every one).
  await lockUnheld(tx, course.id, { quizIds: doomed.quizzes, chapterIds: doomed.chapters, moduleIds: doomed.modules });
  await deleteRows(tx, course.id, { quizIds: doomed.quizzes });
  const moduleIds = await writeModules(
    tx,
    course.id,
    doc.modules.map((m, i) => ({ id: m.id, name: m.name, description: m.description, orderIndex: i })),
  );
  const chapterPlaces = doc.modules.flatMap((m, i) => m.chapters.map((ch, j) => ({ ch, moduleId: moduleIds[i], orderIndex: j })));
  const chapterIds = await writeChapters(
    tx,
    course.id,
    chapterPlaces.map(({ ch, moduleId, orderIndex }) => ({
      id: ch.id,
      moduleId,
      name: ch.name,
      content: ch.content,
      expectedMinutes: ch.expectedMinutes,
      orderIndex,
    })),
  );
  const quizRows: QuizRow[] = [];
  // The final exam's pass mark is the course's (rules/pass-mark.ts); assertFinalPassMark checked the document's.
  const asRow = (q: QuizInput, parent: QuizRow['parent']): QuizRow => ({
    ...q,
    parent,
    minimumScore: parent.scope === 'final' ? passMarkOfDocument(doc) : (q.minimumScore ?? DEFAULT_MINIMUM_SCORE),
  });
  doc.modules.forEach((m, i) => {
    if (m.quiz) quizRows.push(asRow(m.quiz, { scope: 'module', moduleId: moduleIds[i] }));
  });
  chapterPlaces.forEach(({ ch }, k) => {
    if (ch.quiz) quizRows.push(asRow(ch.quiz, { scope: 'chapter', chapterId: chapterIds[k] }));
  });
  if (doc.finalExam) quizRows.push(asRow(doc.finalExam, { scope: 'final' }));
  await writeQuizzes(tx, course.id, quizRows);
  await deleteRows(tx, course.id, { chapterIds: doomed.chapters, moduleIds: doomed.modules });

  const created = (kind: 'modules' | 'chapters' | 'quizzes', total: number) => total - inDoc[kind].size;
  return {
    modules: { created: created('modules', doc.modules.length), updated: inDoc.modules.size, deleted: doomed.modules.length },
    chapters: { created: created('chapters', chapterPlaces.length), updated: inDoc.chapters.size, deleted: doomed.chapters.length },
    quizzes: { created: created('quizzes', quizRows.length), updated: inDoc.quizzes.size, deleted: doomed.quizzes.length },
  };
}
