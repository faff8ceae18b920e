import { type QuestionInput, type QuizOut, rightOptionIds } from '@lms/contracts';
import { type chapters, type Db, type modules, type quizzes, type RawRow, type RawSelect, typedRows } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import { ConflictError } from '../../errors.js';
import { passMarkExpression } from '../rules/pass-mark.js';

// The row writes every authoring operation is made of, each one statement whatever the number of
// rows (the rows travel as one JSON parameter, read by jsonb_to_recordset), so importing a course
// of 100 chapters and 500 questions is a handful of statements, not hundreds. New rows are matched
// back to their place by a key that is unique within the write (a module's order, a chapter's
// module and order, a quiz's parent, a question's quiz and order), never by RETURNING's order.

/** A module to write: its columns (an id when it is kept, none when it is new). */
export type ModuleRow = Pick<RawSelect<typeof modules>, 'name' | 'description' | 'orderIndex'> & { id?: number };

/** A chapter to write, likewise. */
export type ChapterRow = Pick<RawSelect<typeof chapters>, 'moduleId' | 'name' | 'content' | 'orderIndex'> & {
  id?: number;
  /** Left out (undefined): a kept chapter keeps its expected minutes (the outline's writes). */
  expectedMinutes?: number | null;
};

export type QuizParent = { scope: 'chapter'; chapterId: number } | { scope: 'module'; moduleId: number } | { scope: 'final' };

/** A chapter or module quiz's pass mark when its writer gives none. */
export const DEFAULT_MINIMUM_SCORE = 70;

/**
 * A quiz to write, with its place and its questions. `minimumScore`: a final exam's is its
 * course's minPassingScore (rules/pass-mark.ts): the caller writes that.
 */
export type QuizRow = Pick<
  RawSelect<typeof quizzes>,
  | 'name'
  | 'description'
  | 'quizType'
  | 'minimumScore'
  | 'timeLimit'
  | 'maxAttempts'
  | 'evidenceRole'
  | 'drawCount'
  | 'drawTag'
  | 'shuffleOptions'
> & {
  id?: number;
  parent: QuizParent;
  questions: QuestionInput[];
};

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/** Updates the modules with an id (only those that differ) and inserts the others; returns every module's id, in input order. */
export async function writeModules(tx: Db, courseId: number, rows: readonly ModuleRow[]): Promise<number[]> {
  const kept = rows.filter((r) => r.id !== undefined);
  if (kept.length > 0) {
    await tx.execute(sql`
      update modules m set name = v.name, description = v.description, order_index = v."orderIndex", updated_at = now()
      from jsonb_to_recordset(${json(kept)}) as v(id int, name text, description text, "orderIndex" int)
      where m.id = v.id and m.course_id = ${courseId}
        and (m.name, m.description, m.order_index) is distinct from (v.name, v.description, v."orderIndex")`);
  }
  const fresh = rows.filter((r) => r.id === undefined);
  const byOrder = new Map<number, number>();
  if (fresh.length > 0) {
    const inserted = await typedRows<Pick<RawRow<typeof modules>, 'id' | 'order_index'>>(
      tx,
      sql`
      insert into modules (course_id, name, description, order_index)
      select ${courseId}, v.name, v.description, v."orderIndex"
      from jsonb_to_recordset(${json(fresh)}) as v(name text, description text, "orderIndex" int)
      returning id, order_index`,
    );
    for (const r of inserted) byOrder.set(r.order_index, r.id);
  }
  return rows.map((r) => r.id ?? (byOrder.get(r.orderIndex) as number));
}

/** As writeModules, for chapters (a kept chapter may move to another module of the course). */
export async function writeChapters(tx: Db, courseId: number, rows: readonly ChapterRow[]): Promise<number[]> {
  const kept = rows
    .filter((r) => r.id !== undefined)
    .map((r) => ({ ...r, expectedMinutes: r.expectedMinutes ?? null, keepMinutes: r.expectedMinutes === undefined }));
  if (kept.length > 0) {
    const minutes = sql`case when v."keepMinutes" then ch.expected_minutes else v."expectedMinutes" end`;
    await tx.execute(sql`
      update chapters ch set module_id = v."moduleId", name = v.name, content = v.content, order_index = v."orderIndex",
        expected_minutes = ${minutes}, updated_at = now(),
        version = ch.version + case when (ch.name, ch.content, ch.expected_minutes) is distinct from (v.name, v.content, ${minutes}) then 1 else 0 end
      from jsonb_to_recordset(${json(kept)})
        as v(id int, "moduleId" int, name text, content text, "orderIndex" int, "expectedMinutes" int, "keepMinutes" boolean)
      where ch.id = v.id and ch.course_id = ${courseId}
        and (ch.module_id, ch.name, ch.content, ch.order_index, ch.expected_minutes)
          is distinct from (v."moduleId", v.name, v.content, v."orderIndex", ${minutes})`);
  }
  const fresh = rows.filter((r) => r.id === undefined);
  const byPlace = new Map<string, number>();
  if (fresh.length > 0) {
    const inserted = await typedRows<Pick<RawRow<typeof chapters>, 'id' | 'module_id' | 'order_index'>>(
      tx,
      sql`
      insert into chapters (module_id, course_id, name, content, order_index, expected_minutes)
      select v."moduleId", ${courseId}, v.name, v.content, v."orderIndex", v."expectedMinutes"
      from jsonb_to_recordset(${json(fresh)}) as v("moduleId" int, name text, content text, "orderIndex" int, "expectedMinutes" int)
      returning id, module_id, order_index`,
    );
    for (const r of inserted) byPlace.set(`${r.module_id}:${r.order_index}`, r.id);
  }
  return rows.map((r) => r.id ?? (byPlace.get(`${r.moduleId}:${r.orderIndex}`) as number));
}

/** Where a quiz hangs, as the key of its place (one quiz per chapter, per module, one final). */
const placeOf = (p: QuizParent) => (p.scope === 'final' ? 'final' : p.scope === 'module' ? `m${p.moduleId}` : `c${p.chapterId}`);

/**
 * Writes quizzes and their questions: kept quizzes updated (settings and place), new ones
 * inserted; each quiz's questions become exactly the given ones (kept by id, new inserted, the
 * quiz's other questions deleted: attempts keep their own copy). Returns the quizzes' ids in input order.
 */
export async function writeQuizzes(tx: Db, courseId: number, rows: readonly QuizRow[]): Promise<number[]> {
  const flat = rows.map((r) => ({
    id: r.id,
    place: placeOf(r.parent),
    scope: r.parent.scope,
    // A chapter quiz reaches its module through its chapter: its own module_id stays null (as the seed writes it).
    moduleId: r.parent.scope === 'module' ? r.parent.moduleId : null,
    chapterId: r.parent.scope === 'chapter' ? r.parent.chapterId : null,
    name: r.name,
    description: r.description,
    quizType: r.quizType,
    minimumScore: r.minimumScore,
    timeLimit: r.timeLimit,
    maxAttempts: r.maxAttempts,
    evidenceRole: r.evidenceRole,
    drawCount: r.drawCount,
    drawTag: r.drawTag,
    shuffleOptions: r.shuffleOptions,
  }));
  const kept = flat.filter((r) => r.id !== undefined);
  if (kept.length > 0) {
    // A role moving between kept quizzes (a swap) is first cleared, so that the unique index of
    // one role per course, checked row by row, never sees it twice (evidence-roles.ts checked the write).
    await tx.execute(sql`
      update quizzes q set evidence_role = null
      from jsonb_to_recordset(${json(kept)}) as v(id int, "evidenceRole" text)
      where q.id = v.id and q.course_id = ${courseId} and q.evidence_role is not null
        and q.evidence_role is distinct from v."evidenceRole"`);
    await tx.execute(sql`
      update quizzes q set scope = v.scope::quiz_scope, module_id = v."moduleId", chapter_id = v."chapterId", name = v.name,
        description = v.description, quiz_type = v."quizType", minimum_score = v."minimumScore", time_limit = v."timeLimit",
        max_attempts = v."maxAttempts", evidence_role = v."evidenceRole", draw_count = v."drawCount", draw_tag = v."drawTag",
        shuffle_options = v."shuffleOptions", updated_at = now()
      from jsonb_to_recordset(${json(kept)}) as v(
        id int, scope text, "moduleId" int, "chapterId" int, name text, description text, "quizType" text,
        "minimumScore" int, "timeLimit" int, "maxAttempts" int, "evidenceRole" text, "drawCount" int, "drawTag" text, "shuffleOptions" boolean)
      where q.id = v.id and q.course_id = ${courseId}
        and (q.scope::text, q.module_id, q.chapter_id, q.name, q.description, q.quiz_type, q.minimum_score, q.time_limit, q.max_attempts,
            q.evidence_role, q.draw_count, q.draw_tag, q.shuffle_options)
          is distinct from (v.scope, v."moduleId", v."chapterId", v.name, v.description, v."quizType", v."minimumScore", v."timeLimit",
            v."maxAttempts", v."evidenceRole", v."drawCount", v."drawTag", v."shuffleOptions")`);
  }
  const fresh = flat.filter((r) => r.id === undefined);
  const byPlace = new Map<string, number>();
  if (fresh.length > 0) {
    const inserted = await typedRows<Pick<RawRow<typeof quizzes>, 'id' | 'scope' | 'module_id' | 'chapter_id'>>(
      tx,
      sql`
      insert into quizzes (course_id, scope, module_id, chapter_id, name, description, quiz_type, minimum_score, time_limit, max_attempts,
        evidence_role, draw_count, draw_tag, shuffle_options)
      select ${courseId}, v.scope::quiz_scope, v."moduleId", v."chapterId", v.name, v.description, v."quizType", v."minimumScore",
        v."timeLimit", v."maxAttempts", v."evidenceRole", v."drawCount", v."drawTag", coalesce(v."shuffleOptions", false)
      from jsonb_to_recordset(${json(fresh)}) as v(
        scope text, "moduleId" int, "chapterId" int, name text, description text, "quizType" text,
        "minimumScore" int, "timeLimit" int, "maxAttempts" int, "evidenceRole" text, "drawCount" int, "drawTag" text, "shuffleOptions" boolean)
      returning id, scope::text as scope, module_id, chapter_id`,
    );
    for (const r of inserted) {
      byPlace.set(r.scope === 'final' ? 'final' : r.scope === 'module' ? `m${r.module_id}` : `c${r.chapter_id}`, r.id);
    }
  }
  const ids = flat.map((r) => r.id ?? (byPlace.get(r.place) as number));
  await writeQuestions(
    tx,
    ids,
    rows.map((r) => r.questions),
  );
  return ids;
}

/** A question as its columns are written, a quiz's or the bank's (./question-bank.ts). */
export function questionRow(
  q: Pick<QuestionInput, 'questionType' | 'questionText' | 'points' | 'options' | 'correctAnswer' | 'essayAnswer' | 'explanation'> & {
    id?: number;
  },
  orderIndex: number,
) {
  return {
    id: q.id,
    orderIndex,
    questionType: q.questionType,
    questionText: q.questionText,
    points: q.points,
    options: q.options,
    // Choice questions keep their right option ids here too, as the seed data always has.
    correctAnswer: q.options.length > 0 ? rightOptionIds(q.options) : q.correctAnswer,
    essayAnswer: q.essayAnswer,
    explanation: q.explanation,
  };
}

/** The questions of each quiz become exactly `questionsOf[i]` for `quizIds[i]`. */
async function writeQuestions(tx: Db, quizIds: readonly number[], questionsOf: readonly QuestionInput[][]): Promise<void> {
  const all = quizIds.flatMap((quizId, i) => questionsOf[i].map((q, orderIndex) => ({ ...questionRow(q, orderIndex), quizId })));
  const keptIds = all.filter((q) => q.id !== undefined).map((q) => q.id as number);
  if (quizIds.length > 0) {
    await tx.execute(sql`
      delete from questions where quiz_id in (select unnest(${`{${quizIds.join(',')}}`}::int[]))
        and not (id = any(${`{${keptIds.join(',')}}`}::int[]))`);
  }
  const kept = all.filter((q) => q.id !== undefined);
  if (kept.length > 0) {
    await tx.execute(sql`
      update questions qu set quiz_id = v."quizId", order_index = v."orderIndex", question_type = v."questionType",
        question_text = v."questionText", points = v.points, options = v.options, correct_answer = v."correctAnswer",
        essay_answer = v."essayAnswer", explanation = v.explanation, updated_at = now()
      from jsonb_to_recordset(${json(kept)}) as v(id int, "quizId" int, "orderIndex" int, "questionType" text, "questionText" text,
        points int, options jsonb, "correctAnswer" text, "essayAnswer" text, explanation text)
      where qu.id = v.id
        and (qu.quiz_id, qu.order_index, qu.question_type, qu.question_text, qu.points, qu.options, qu.correct_answer, qu.essay_answer, qu.explanation)
          is distinct from (v."quizId", v."orderIndex", v."questionType", v."questionText", v.points, v.options, v."correctAnswer", v."essayAnswer", v.explanation)`);
  }
  const fresh = all.filter((q) => q.id === undefined);
  if (fresh.length > 0) {
    await tx.execute(sql`
      insert into questions (quiz_id, order_index, question_type, question_text, points, options, correct_answer, essay_answer, explanation)
      select v."quizId", v."orderIndex", v."questionType", v."questionText", v.points, v.options, v."correctAnswer", v."essayAnswer", v.explanation
      from jsonb_to_recordset(${json(fresh)}) as v("quizId" int, "orderIndex" int, "questionType" text, "questionText" text,
        points int, options jsonb, "correctAnswer" text, "essayAnswer" text, explanation text)`);
  }
}

/** Names of what learners hold, for a 409 that says what stands in the way. */
type Held = Pick<RawSelect<typeof chapters>, 'id' | 'name'> & { kind: 'chapter' | 'quiz'; count: number };

/** What a deletion takes: modules, chapters and quizzes named (with everything under them). */
export interface Doomed {
  moduleIds?: readonly number[];
  chapterIds?: readonly number[];
  quizIds?: readonly number[];
}

const ints = (ids: readonly number[] = []) => sql`${`{${ids.join(',')}}`}::int[]`;

/**
 * Locks every chapter and quiz a deletion would take (those named, in a module named, or on a
 * chapter taken) FOR UPDATE, then refuses (409 naming each) if a learner holds any: a chapter with
 * completions, a quiz with attempts. The count is the next statement's: a completion or an attempt
 * being written holds a KEY SHARE lock on its chapter or quiz, so it is either committed (and
 * counted) before the lock is granted, or waits, and finds its chapter or quiz gone.
 */
export async function lockUnheld(tx: Db, courseId: number, doomed: Doomed): Promise<void> {
  const inModules = ints(doomed.moduleIds);
  // Raw: FOR UPDATE over ids given as int arrays.
  const chapterRows = await typedRows<Pick<RawSelect<typeof chapters>, 'id'>>(
    tx,
    sql`
    select id from chapters where course_id = ${courseId} and (id = any(${ints(doomed.chapterIds)}) or module_id = any(${inModules}))
    order by id for update`,
  );
  const chapterIds = chapterRows.map((r) => r.id);
  const quizRows = await typedRows<Pick<RawSelect<typeof quizzes>, 'id'>>(
    tx,
    sql`
    select id from quizzes where course_id = ${courseId}
      and (id = any(${ints(doomed.quizIds)}) or module_id = any(${inModules}) or chapter_id = any(${ints(chapterIds)}))
    order by id for update`,
  );
  const quizIds = quizRows.map((r) => r.id);
  if (chapterIds.length === 0 && quizIds.length === 0) return;
  // Raw: completions and attempts counted for both kinds in one union.
  const held = await typedRows<Held>(
    tx,
    sql`
    select 'chapter' as kind, ch.id, ch.name, count(*)::int as count
      from chapter_completions cc join chapters ch on ch.id = cc.chapter_id
      where cc.chapter_id = any(${ints(chapterIds)}) group by ch.id, ch.name
    union all
    select 'quiz', q.id, q.name, count(*)::int
      from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
      where qa.quiz_id = any(${ints(quizIds)}) group by q.id, q.name
    order by 1, 2`,
  );
  if (held.length > 0) throw new LearnersHoldError(held);
}

/** Deletes what lockUnheld checked (quizzes, chapters, modules; their questions and quizzes go by cascade). */
export async function deleteRows(tx: Db, courseId: number, doomed: Doomed): Promise<void> {
  if ((doomed.quizIds?.length ?? 0) > 0)
    await tx.execute(sql`delete from quizzes where course_id = ${courseId} and id = any(${ints(doomed.quizIds)})`);
  if ((doomed.chapterIds?.length ?? 0) > 0)
    await tx.execute(sql`delete from chapters where course_id = ${courseId} and id = any(${ints(doomed.chapterIds)})`);
  if ((doomed.moduleIds?.length ?? 0) > 0)
    await tx.execute(sql`delete from modules where course_id = ${courseId} and id = any(${ints(doomed.moduleIds)})`);
}

/** Deletes modules, chapters and quizzes with everything under them, unless a learner holds any of it (409, nothing deleted). */
export async function deleteKeepingLearners(tx: Db, courseId: number, doomed: Doomed): Promise<void> {
  await lockUnheld(tx, courseId, doomed);
  await deleteRows(tx, courseId, doomed);
}

/** 409: a deletion would take learners' completions or attempts with it. */
export class LearnersHoldError extends ConflictError {
  constructor(readonly held: readonly Held[]) {
    const what = held.map((h) =>
      h.kind === 'chapter'
        ? `chapter ${h.id} "${h.name}" has ${h.count} completion(s)`
        : `quiz ${h.id} "${h.name}" has ${h.count} attempt(s)`,
    );
    super(`Learners' records would be lost: ${what.join('; ')}. Rename or rewrite them instead of deleting them.`);
  }
}

/** A quiz as authors read it (answer keys included), or one of each of `where`'s quizzes, in the JSON PostgreSQL builds. */
export function quizJson(alias: string): SQL {
  return sql.raw(`json_build_object('id', ${alias}.id, 'name', ${alias}.name, 'description', ${alias}.description,
    'quizType', ${alias}.quiz_type, 'minimumScore', ${passMarkExpression(alias)}, 'timeLimit', ${alias}.time_limit,
    'maxAttempts', ${alias}.max_attempts, 'evidenceRole', ${alias}.evidence_role,
    'drawCount', ${alias}.draw_count, 'drawTag', ${alias}.draw_tag, 'shuffleOptions', ${alias}.shuffle_options,
    'questions', coalesce((select json_agg(json_build_object('id', qu.id, 'questionType', qu.question_type,
        'questionText', qu.question_text, 'points', qu.points,
        'options', coalesce((select json_agg(json_build_object('id', o->>'id', 'text', o->>'text',
            'isCorrect', coalesce((o->>'isCorrect')::boolean, (o->>'is_correct')::boolean, (o->>'correct')::boolean, false)) order by n)
          from jsonb_array_elements(qu.options) with ordinality as x(o, n)), '[]'::json),
        'correctAnswer', qu.correct_answer, 'essayAnswer', qu.essay_answer, 'explanation', qu.explanation)
      order by qu.order_index, qu.id) from questions qu where qu.quiz_id = ${alias}.id), '[]'::json))`);
}

/** One quiz, as authors read it. */
export async function readQuiz(db: Db, quizId: number): Promise<QuizOut> {
  const [row] = await typedRows<{ quiz: QuizOut }>(db, sql`select ${quizJson('q')} as quiz from quizzes q where q.id = ${quizId}`);
  return row.quiz;
}
