import type { ChecklistItem } from '@lms/contracts';
import { type Db, inTransaction, type quizzes as quizzesTable, type RawSelect, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { type AuthoringContext, type CourseRow, findAuthoredCourse, lockAuthoredCourse } from './authors.js';
import { recordChange } from './history.js';

/** A question that counts toward a score: a right option, or a text key. */
const scored = sql.raw(
  `(exists (select 1 from jsonb_array_elements(qu.options) o
      where coalesce((o->>'isCorrect')::boolean, (o->>'is_correct')::boolean, (o->>'correct')::boolean, false))
    or coalesce(trim(qu.correct_answer), '') <> '')`,
);

/** A quiz of a course as the checklist counts it: its questions, the scored ones, the ones without an answer key. */
export type QuizReadiness = Pick<RawSelect<typeof quizzesTable>, 'id' | 'name' | 'scope' | 'drawCount' | 'drawTag'> & {
  questions: number;
  scored: number;
  withoutKey: number;
  /** The bank questions it may draw from (all 0 when it draws none), and those of them that are scored or lack a key. */
  bank: { n: number; scored: number; withoutKey: number };
};

/** Every quiz of the course, counted for the `quizzes` rule (the studio says it in the person's words). */
async function quizReadiness(db: Db, courseId: number): Promise<QuizReadiness[]> {
  // Raw: per-quiz counts with FILTER over the answer-key expression (scored).
  return typedRows<QuizReadiness>(
    db,
    sql`
    select q.id, q.name, q.scope::text as scope, q.draw_count as "drawCount", q.draw_tag as "drawTag",
      count(qu.id)::int as questions,
      count(qu.id) filter (where ${scored})::int as scored,
      count(qu.id) filter (where qu.question_type <> 'essay' and not ${scored})::int as "withoutKey",
      (select json_build_object('n', count(*), 'scored', count(*) filter (where ${scored}),
          'withoutKey', count(*) filter (where qu.question_type <> 'essay' and not ${scored}))
        from bank_questions qu where q.draw_count is not null and qu.course_id = q.course_id
          and (q.draw_tag is null or q.draw_tag = any(qu.tags))) as bank
    from quizzes q left join questions qu on qu.quiz_id = q.id
    where q.course_id = ${courseId}
    group by q.id, q.name, q.scope order by q.id`,
  );
}

/** The checklist of a course: each rule, whether it holds, and what it asks or what is wrong. */
export async function checklistOf(db: Db, course: CourseRow): Promise<ChecklistItem[]> {
  return checklistFor(course, await quizReadiness(db, course.id));
}

/** The checklist from the course and its quizzes' counts (quizReadiness). */
function checklistFor(course: CourseRow, quizzes: readonly QuizReadiness[]): ChecklistItem[] {
  const badQuizzes = quizzes.flatMap((q) => {
    const what = `the ${q.scope === 'final' ? 'final exam' : `${q.scope} quiz`} "${q.name}" (id ${q.id})`;
    if (q.drawCount !== null) {
      const from = q.drawTag === null ? 'the question bank' : `the question bank's "${q.drawTag}" questions`;
      if (q.bank.n < q.drawCount) return [`${what} draws ${q.drawCount} question(s) from ${from}, which holds ${q.bank.n}`];
      if (q.bank.withoutKey > 0) return [`${what} may draw ${q.bank.withoutKey} question(s) of ${from} without an answer key`];
      if (q.withoutKey > 0) return [`${what} has ${q.withoutKey} question(s) without an answer key`];
      if (q.scored + q.bank.scored === 0) return [`${what} has no scored question (essays are not scored)`];
      return [];
    }
    if (q.questions === 0) return [`${what} has no questions`];
    if (q.withoutKey > 0) return [`${what} has ${q.withoutKey} question(s) without an answer key`];
    if (q.scored === 0) return [`${what} has no scored question (essays are not scored)`];
    return [];
  });
  const price = Number(course.price);
  const otherPrices = [course.price_non_member, course.price_mahasiswa].filter((p) => p !== null);
  const pricesOk = course.is_purchasable ? price > 0 : price === 0 && otherPrices.every((p) => Number(p) === 0);
  const start = course.start_date === null ? null : new Date(course.start_date);
  const end = course.end_date === null ? null : new Date(course.end_date);
  const datesOk = start === null || end === null || end >= start;
  return [
    {
      rule: 'chapters',
      ok: course.chapter_count > 0,
      message: course.chapter_count > 0 ? `${course.chapter_count} chapter(s)` : 'The course needs at least one chapter',
    },
    {
      rule: 'quizzes',
      ok: badQuizzes.length === 0,
      message:
        badQuizzes.length === 0
          ? `${quizzes.length} quiz(zes), each with scored questions and their answer keys`
          : `Every quiz needs questions with answer keys: ${badQuizzes.join('; ')}`,
    },
    {
      rule: 'prices',
      ok: pricesOk,
      message: pricesOk
        ? course.is_purchasable
          ? `Sold at ${course.price} ${course.currency}`
          : 'Free'
        : course.is_purchasable
          ? 'A purchasable course needs a price above 0 (or set isPurchasable to false)'
          : 'A free course (isPurchasable false) has price 0 and no member or student price',
    },
    {
      rule: 'dates',
      ok: datesOk,
      message: datesOk ? 'The dates are in order' : 'endDate is before startDate',
    },
    {
      rule: 'eventCode',
      ok: course.event_code !== null,
      message:
        course.event_code !== null
          ? `Event code ${course.event_code}`
          : 'Set an eventCode: a published course is buyer-visible only with one',
    },
    {
      rule: 'enrollmentCode',
      ok: course.enrollment_type !== 'code' || course.enrollment_code !== null,
      message:
        course.enrollment_type !== 'code'
          ? `Enrolment is ${course.enrollment_type}`
          : course.enrollment_code !== null
            ? 'Learners enrol with the enrolment code'
            : 'A course enrolled by code needs its enrollmentCode',
    },
  ];
}

export interface Publication {
  course: CourseRow;
  checklist: ChecklistItem[];
}

/**
 * Whether the course is published, and its checklist (those who may author it), with the quizzes'
 * counts the checklist was made from (the studio says the quizzes rule from them in words).
 */
export async function readPublication(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
): Promise<Publication & { quizzes: QuizReadiness[] }> {
  const course = await findAuthoredCourse(db, ctx.author, { course: courseId });
  const quizzes = await quizReadiness(db, course.id);
  return { course, checklist: checklistFor(course, quizzes), quizzes };
}

/**
 * Publishes the course if its checklist holds: `published` false (and nothing changed) when a
 * rule fails, with the checklist saying which. Publishing a published course changes nothing.
 */
export async function publishCourse(db: Db, ctx: AuthoringContext, courseId: number): Promise<Publication & { published: boolean }> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    const checklist = await checklistOf(tx, course);
    if (!checklist.every((item) => item.ok)) return { course, checklist, published: false };
    if (!course.is_published) {
      await tx.execute(sql`update courses set is_published = true, updated_at = now() where id = ${courseId}`);
      await recordChange(tx, ctx, { courseId, action: 'course.publish', changes: [{ path: 'course.isPublished', from: false, to: true }] });
    }
    return { course: { ...course, is_published: true }, checklist, published: true };
  });
}

/** Unpublishes the course: out of the catalog; enrolled learners keep their access and records. */
export async function unpublishCourse(db: Db, ctx: AuthoringContext, courseId: number): Promise<Publication> {
  return inTransaction(db, async (tx) => {
    const course = await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    if (course.is_published) {
      await tx.execute(sql`update courses set is_published = false, updated_at = now() where id = ${courseId}`);
      await recordChange(tx, ctx, {
        courseId,
        action: 'course.unpublish',
        changes: [{ path: 'course.isPublished', from: true, to: false }],
      });
    }
    const after = { ...course, is_published: false };
    return { course: after, checklist: await checklistOf(tx, after) };
  });
}
