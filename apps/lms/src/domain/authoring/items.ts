import { AUTHORING_LIMITS, type OutlineBody, type QuizOut } from '@lms/contracts';
import type { QuizInput } from '@lms/contracts';
import { type chapters, type Db, inTransaction, type modules, type questions, type RawSelect, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { BadRequestError, invalidBody, NotFoundError } from '../../errors.js';
import { type AuthoringContext, type CourseRow, lockAuthoredCourse } from './authors.js';
import { assertEvidenceRoleFree } from './evidence-roles.js';
import { changedFields, recorded, recordChange } from './history.js';
import { assertVersion } from './versions.js';
import {
  DEFAULT_MINIMUM_SCORE,
  deleteKeepingLearners,
  type QuizParent,
  readQuiz,
  writeChapters,
  writeModules,
  writeQuizzes,
} from './rows.js';

// Modules, chapters and quizzes one at a time, and the course's outline (their order). Each write
// locks its course (lockAuthoredCourse), checks, writes and records itself in one transaction
// (a savepoint inside a partner's request transaction).

export type ModuleView = Pick<RawSelect<typeof modules>, 'id' | 'courseId' | 'name' | 'description' | 'orderIndex'>;

/** `version`: bumped by each change of name, content or expected minutes (the studio's version check). */
export type ChapterView = Pick<
  RawSelect<typeof chapters>,
  'id' | 'courseId' | 'moduleId' | 'name' | 'content' | 'expectedMinutes' | 'orderIndex' | 'version'
>;

/** 400 naming the limit a write would pass. */
function overLimit(what: string, limit: number, name: string): BadRequestError {
  return new BadRequestError(`The course already has ${limit} ${what}, the most a course may have (the ${name} limit)`);
}

async function findModule(tx: Db, moduleId: number): Promise<ModuleView> {
  const [row] = await typedRows<ModuleView>(
    tx,
    sql`
    select id, course_id as "courseId", name, description, order_index as "orderIndex" from modules where id = ${moduleId}`,
  );
  if (!row) throw new NotFoundError('Module not found');
  return row;
}

async function findChapter(tx: Db, chapterId: number): Promise<ChapterView> {
  const [row] = await typedRows<ChapterView>(
    tx,
    sql`
    select id, course_id as "courseId", module_id as "moduleId", name, content, expected_minutes as "expectedMinutes",
      order_index as "orderIndex", version from chapters where id = ${chapterId}`,
  );
  if (!row) throw new NotFoundError('Chapter not found');
  return row;
}

/** Adds a module at the end of the course. */
export async function createModule(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
  body: { name: string; description: string },
): Promise<ModuleView> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    if (course.module_count >= AUTHORING_LIMITS.modulesPerCourse)
      throw overLimit('modules', AUTHORING_LIMITS.modulesPerCourse, 'modules-per-course');
    const orderIndex = await nextOrder(tx, sql`select max(order_index) as n from modules where course_id = ${courseId}`);
    const [id] = await writeModules(tx, courseId, [{ ...body, orderIndex }]);
    await recordChange(tx, ctx, { courseId, action: 'module.create', targetId: id, changes: [{ path: `modules[${id}]`, to: body }] });
    return findModule(tx, id);
  });
}

export async function updateModule(
  db: Db,
  ctx: AuthoringContext,
  moduleId: number,
  patch: { name?: string; description?: string },
): Promise<ModuleView> {
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { module: moduleId });
    const before = await findModule(tx, moduleId);
    const after = { ...before, ...patch };
    await writeModules(tx, before.courseId, [after]);
    const changes = changedFields(`modules[${moduleId}]`, { name: before.name, description: before.description }, patch);
    await recordChange(tx, ctx, { courseId: before.courseId, action: 'module.update', targetId: moduleId, changes });
    return findModule(tx, moduleId);
  });
}

/** Deletes a module with its chapters and quizzes, unless learners hold any of them (409). */
export async function deleteModule(db: Db, ctx: AuthoringContext, moduleId: number): Promise<{ kind: 'module'; id: number }> {
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { module: moduleId });
    const before = await findModule(tx, moduleId);
    await deleteKeepingLearners(tx, before.courseId, { moduleIds: [moduleId] });
    await recordChange(tx, ctx, {
      courseId: before.courseId,
      action: 'module.delete',
      targetId: moduleId,
      changes: [{ path: `modules[${moduleId}]`, from: { name: before.name } }],
    });
    return { kind: 'module' as const, id: moduleId };
  });
}

/** Adds a chapter at the end of a module. */
export async function createChapter(
  db: Db,
  ctx: AuthoringContext,
  moduleId: number,
  body: { name: string; content: string; expectedMinutes?: number | null },
): Promise<ChapterView> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { module: moduleId });
    if (course.chapter_count >= AUTHORING_LIMITS.chaptersPerCourse) {
      throw overLimit('chapters', AUTHORING_LIMITS.chaptersPerCourse, 'chapters-per-course');
    }
    const orderIndex = await nextOrder(tx, sql`select max(order_index) as n from chapters where module_id = ${moduleId}`);
    const [id] = await writeChapters(tx, course.id, [{ ...body, moduleId, orderIndex }]);
    await recordChange(tx, ctx, {
      courseId: course.id,
      action: 'chapter.create',
      targetId: id,
      changes: [
        {
          path: `chapters[${id}]`,
          to: { moduleId, name: body.name, content: recorded(body.content), expectedMinutes: body.expectedMinutes ?? null },
        },
      ],
    });
    return findChapter(tx, id);
  });
}

export async function updateChapter(
  db: Db,
  ctx: AuthoringContext,
  chapterId: number,
  patch: { name?: string; content?: string; expectedMinutes?: number | null },
  expectedVersion?: number,
): Promise<ChapterView> {
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { chapter: chapterId });
    const before = await findChapter(tx, chapterId);
    assertVersion('chapter', expectedVersion, before.version, before);
    const after = { ...before, ...patch };
    await writeChapters(tx, before.courseId, [after]);
    const changes = changedFields(
      `chapters[${chapterId}]`,
      { name: before.name, content: before.content, expectedMinutes: before.expectedMinutes },
      patch,
    );
    await recordChange(tx, ctx, { courseId: before.courseId, action: 'chapter.update', targetId: chapterId, changes });
    return findChapter(tx, chapterId);
  });
}

/** Deletes a chapter and its quiz, unless a learner completed it or attempted the quiz (409). */
export async function deleteChapter(db: Db, ctx: AuthoringContext, chapterId: number): Promise<{ kind: 'chapter'; id: number }> {
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { chapter: chapterId });
    const before = await findChapter(tx, chapterId);
    await deleteKeepingLearners(tx, before.courseId, { chapterIds: [chapterId] });
    await recordChange(tx, ctx, {
      courseId: before.courseId,
      action: 'chapter.delete',
      targetId: chapterId,
      changes: [{ path: `chapters[${chapterId}]`, from: { moduleId: before.moduleId, name: before.name } }],
    });
    return { kind: 'chapter' as const, id: chapterId };
  });
}

/**
 * Puts the course's modules and chapters in the given order (chapters may move between modules).
 * The outline must name every module and every chapter of the course, each once: anything
 * missing, extra, foreign or repeated is a 400 naming it.
 */
export async function reorderOutline(db: Db, ctx: AuthoringContext, courseId: number, body: OutlineBody) {
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    // Raw: each module with its chapters as one JSON array, in one statement under the course's lock.
    type OutlineChapter = Pick<ChapterView, 'id' | 'name' | 'content' | 'moduleId' | 'orderIndex'>;
    type OutlineModule = Omit<ModuleView, 'courseId'> & { chapters: OutlineChapter[] };
    const current = await typedRows<OutlineModule>(
      tx,
      sql`
      select m.id, m.name, m.description, m.order_index as "orderIndex",
        coalesce((select json_agg(json_build_object('id', ch.id, 'name', ch.name, 'content', ch.content, 'moduleId', ch.module_id,
          'orderIndex', ch.order_index) order by ch.order_index, ch.id) from chapters ch where ch.module_id = m.id), '[]') as chapters
      from modules m where m.course_id = ${courseId} order by m.order_index, m.id`,
    );
    const modules = new Map(current.map((m) => [m.id, m]));
    const chapters = new Map(current.flatMap((m) => m.chapters.map((ch) => [ch.id, ch] as const)));
    const problems: { path: string; message: string }[] = [];
    const seenModules = new Set<number>();
    const seenChapters = new Set<number>();
    body.modules.forEach((m, i) => {
      if (!modules.has(m.id)) problems.push({ path: `modules.${i}.id`, message: `module ${m.id} is not a module of this course` });
      else if (seenModules.has(m.id)) problems.push({ path: `modules.${i}.id`, message: `module ${m.id} appears twice` });
      seenModules.add(m.id);
      m.chapterIds.forEach((id, j) => {
        if (!chapters.has(id))
          problems.push({ path: `modules.${i}.chapterIds.${j}`, message: `chapter ${id} is not a chapter of this course` });
        else if (seenChapters.has(id)) problems.push({ path: `modules.${i}.chapterIds.${j}`, message: `chapter ${id} appears twice` });
        seenChapters.add(id);
      });
    });
    const missingModules = [...modules.keys()].filter((id) => !seenModules.has(id));
    const missingChapters = [...chapters.keys()].filter((id) => !seenChapters.has(id));
    if (missingModules.length > 0) problems.push({ path: 'modules', message: `modules left out: ${missingModules.join(', ')}` });
    if (missingChapters.length > 0) problems.push({ path: 'modules', message: `chapters left out: ${missingChapters.join(', ')}` });
    if (problems.length > 0) throw invalidBody(problems);

    await writeModules(
      tx,
      courseId,
      body.modules.map((m, i) => {
        const row = modules.get(m.id) as OutlineModule;
        return { id: m.id, name: row.name, description: row.description, orderIndex: i };
      }),
    );
    await writeChapters(
      tx,
      courseId,
      body.modules.flatMap((m) =>
        m.chapterIds.map((id, j) => {
          const row = chapters.get(id) as OutlineChapter;
          return { id, moduleId: m.id, name: row.name, content: row.content, orderIndex: j };
        }),
      ),
    );
    const before = current.map((m) => ({ id: m.id, chapterIds: m.chapters.map((ch) => ch.id) }));
    const changes = JSON.stringify(before) === JSON.stringify(body.modules) ? [] : [{ path: 'outline', from: before, to: body.modules }];
    await recordChange(tx, ctx, { courseId, action: 'outline.reorder', changes });
    return {
      courseId,
      modules: body.modules.map((m) => ({
        id: m.id,
        name: (modules.get(m.id) as OutlineModule).name,
        chapters: m.chapterIds.map((id) => ({ id, name: (chapters.get(id) as OutlineChapter).name })),
      })),
    };
  });
}

/** Where a quiz is put: on a chapter, on a module, or as the course's final exam. */
export type QuizPlace = { chapter: number } | { module: number } | { finalOf: number };

/** The course and the quiz now at `place` (null when there is none). */
async function quizAt(
  tx: Db,
  ctx: AuthoringContext,
  place: QuizPlace,
): Promise<{ course: CourseRow; parent: QuizParent; quizId: number | null }> {
  const course = await lockAuthoredCourse(
    tx,
    ctx.author,
    'chapter' in place ? place : 'module' in place ? place : { course: place.finalOf },
  );
  const parent: QuizParent =
    'chapter' in place
      ? { scope: 'chapter', chapterId: place.chapter }
      : 'module' in place
        ? { scope: 'module', moduleId: place.module }
        : { scope: 'final' };
  const where =
    parent.scope === 'chapter'
      ? sql`scope = 'chapter' and chapter_id = ${parent.chapterId}`
      : parent.scope === 'module'
        ? sql`scope = 'module' and module_id = ${parent.moduleId}`
        : sql`scope = 'final'`;
  const { rows } = await tx.execute(sql`select id from quizzes where course_id = ${course.id} and ${where} order by id limit 1`);
  return { course, parent, quizId: (rows[0] as { id: number } | undefined)?.id ?? null };
}

/**
 * Creates or replaces the quiz at `place`: its settings, and exactly the given questions (an id
 * keeps that question of this quiz; an id of any other question is a 400). A started attempt
 * keeps its own copy of the questions, so changing them never changes an attempt.
 */
export async function putQuiz(
  db: Db,
  ctx: AuthoringContext,
  place: QuizPlace,
  body: Omit<QuizInput, 'id'>,
  expectedVersion?: number,
): Promise<{ courseId: number; quiz: QuizOut; version: number }> {
  return inTransaction(db, async (tx) => {
    const { course, parent, quizId } = await quizAt(tx, ctx, place);
    const versionBefore = quizId === null ? 0 : await quizVersion(tx, quizId);
    if (expectedVersion !== undefined && expectedVersion !== versionBefore) {
      assertVersion('quiz', expectedVersion, versionBefore, quizId === null ? null : await readQuiz(tx, quizId));
    }
    const given = body.questions.map((q, i) => ({ id: q.id, i })).filter((q) => q.id !== undefined);
    if (given.length > 0) {
      const rows = await typedRows<Pick<RawSelect<typeof questions>, 'id'>>(
        tx,
        sql`select id from questions where quiz_id = ${quizId ?? 0}`,
      );
      const own = new Set(rows.map((r) => r.id));
      const seen = new Set<number>();
      const problems = given.flatMap(({ id, i }) => {
        const path = `questions.${i}.id`;
        if (!own.has(id as number)) return [{ path, message: `question ${id} is not a question of this quiz` }];
        if (seen.has(id as number)) return [{ path, message: `question ${id} appears twice` }];
        seen.add(id as number);
        return [];
      });
      if (problems.length > 0) throw invalidBody(problems);
    }
    await assertEvidenceRoleFree(tx, course.id, quizId, parent.scope, body.evidenceRole);
    const before = quizId === null ? null : await readQuiz(tx, quizId);
    // The final exam's pass mark is the course's minPassingScore (rules/pass-mark.ts): one given
    // with the final exam sets the course's (the studio's final-exam form says so); none keeps it.
    const passMark =
      parent.scope === 'final' ? (body.minimumScore ?? course.min_passing_score) : (body.minimumScore ?? DEFAULT_MINIMUM_SCORE);
    const coursePassMark =
      parent.scope === 'final' && passMark !== course.min_passing_score
        ? [{ path: 'course.minPassingScore', from: course.min_passing_score, to: passMark }]
        : [];
    if (coursePassMark.length > 0) {
      await tx.execute(sql`update courses set min_passing_score = ${passMark}, version = version + 1 where id = ${course.id}`);
    }
    const [id] = await writeQuizzes(tx, course.id, [{ ...body, minimumScore: passMark, id: quizId ?? undefined, parent }]);
    const after = await readQuiz(tx, id);
    const changes =
      before === null
        ? [{ path: `quizzes[${id}]`, to: { ...parent, name: after.name, questions: after.questions.length } }, ...coursePassMark]
        : [
            ...coursePassMark,
            ...changedFields(`quizzes[${id}]`, settingsOf(before), settingsOf(after)),
            ...(JSON.stringify(before.questions) === JSON.stringify(after.questions)
              ? []
              : [
                  {
                    path: `quizzes[${id}].questions`,
                    from: recorded(JSON.stringify(before.questions)),
                    to: recorded(JSON.stringify(after.questions)),
                  },
                ]),
          ];
    await recordChange(tx, ctx, { courseId: course.id, action: before === null ? 'quiz.create' : 'quiz.replace', targetId: id, changes });
    if (before !== null && changes.length > 0) await tx.execute(sql`update quizzes set version = version + 1 where id = ${id}`);
    return { courseId: course.id, quiz: after, version: await quizVersion(tx, id) };
  });
}

function settingsOf(q: QuizOut) {
  const { questions: _q, id: _id, ...settings } = q;
  return settings;
}

/** Deletes the quiz at `place`, unless a learner attempted it (409). 404 when there is none. */
export async function deleteQuiz(db: Db, ctx: AuthoringContext, place: QuizPlace): Promise<{ kind: 'quiz'; id: number }> {
  return inTransaction(db, async (tx) => {
    const { course, quizId } = await quizAt(tx, ctx, place);
    if (quizId === null) throw new NotFoundError('There is no quiz here');
    const before = await readQuiz(tx, quizId);
    await deleteKeepingLearners(tx, course.id, { quizIds: [quizId] });
    await recordChange(tx, ctx, {
      courseId: course.id,
      action: 'quiz.delete',
      targetId: quizId,
      changes: [{ path: `quizzes[${quizId}]`, from: { name: before.name, questions: before.questions.length } }],
    });
    return { kind: 'quiz' as const, id: quizId };
  });
}

/** A quiz's version (bumped by each write that changed it; 0 stands for "no quiz yet"). */
export async function quizVersion(tx: Db, quizId: number): Promise<number> {
  const { rows } = await tx.execute(sql`select version from quizzes where id = ${quizId}`);
  return Number((rows[0] as { version: number } | undefined)?.version ?? 0);
}

async function nextOrder(tx: Db, query: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await tx.execute(query);
  const n = (rows[0] as { n: number | null } | undefined)?.n;
  return n === null || n === undefined ? 0 : Number(n) + 1;
}
