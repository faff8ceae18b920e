/**
 * The counters of migrations 0002/0003 stay right only when enrollments and chapter completions
 * are written under READ COMMITTED: a REPEATABLE READ or SERIALIZABLE transaction whose snapshot
 * predates an enrollment committed by another connection would write a completion whose trigger
 * does not see the enrollment, leaving completed_chapters one short (SSI does not catch it when
 * the other writer is READ COMMITTED). Migration 0003 makes lms_user_course_lock() refuse such
 * writes; these tests check the refusal and, on PostgreSQL, the race it prevents.
 */
import { chapterCompletions, chapters, courses, type Db, enrollments, modules } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { testDatabaseUrl } from '../helpers/database.js';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { recordChapterCompletion } from '../../src/domain/learning/chapter-completions.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';

const AT = new Date('2026-06-01T00:00:00.000Z');
const ISOLATION_LEVELS = ['repeatable read', 'serializable'] as const;

async function makeCourseWithChapter(db: Db) {
  const institutionId = await makeInstitution(db);
  const teacher = await makeUser(db, { role: 'teacher', institutionId });
  const [course] = await db.insert(courses).values({ name: 'c', teacherId: teacher.id, institutionId }).returning();
  const [mod] = await db.insert(modules).values({ courseId: course!.id, name: 'm' }).returning();
  const [chapter] = await db.insert(chapters).values({ moduleId: mod!.id, courseId: course!.id, name: 'x' }).returning();
  return { courseId: course!.id, chapterId: chapter!.id };
}

/** SQLSTATE of a driver error, looking through Drizzle's wrapping. */
function pgCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

t.test('writes that keep counters are refused outside READ COMMITTED', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const { courseId, chapterId } = await makeCourseWithChapter(db.db);
  const student = await makeUser(db.db);

  for (const isolationLevel of ISOLATION_LEVELS) {
    const enroll = db.db.transaction(
      async (tx) => {
        await tx.insert(enrollments).values({ userId: student.id, courseId });
      },
      { isolationLevel },
    );
    await t.rejects(enroll, `a ${isolationLevel} enrollment is refused`);
    t.equal(pgCode(await enroll.catch((e: unknown) => e)), '0A000', 'as feature_not_supported');

    const complete = db.db.transaction(
      async (tx) => {
        await recordChapterCompletion(tx, student.id, chapterId, AT);
      },
      { isolationLevel },
    );
    await t.rejects(complete, `a ${isolationLevel} chapter completion is refused`);
  }
  t.same(await db.db.select().from(enrollments), [], 'nothing was enrolled');
  t.same(await db.db.select().from(chapterCompletions), [], 'nothing was completed');

  // The default (READ COMMITTED) still writes, and the counter follows.
  await db.db.insert(enrollments).values({ userId: student.id, courseId });
  t.equal(await recordChapterCompletion(db.db, student.id, chapterId, AT), 'recorded');
  const [row] = await db.db.select().from(enrollments);
  t.equal(row!.completedChapters, 1, 'READ COMMITTED writes keep the counter');
});

// PGlite has one connection: no other writer can commit under an open snapshot. The refusal itself is tested above.
const NO_CONCURRENT_WRITER = testDatabaseUrl ? false : 'PGlite has one connection, no concurrent writer (set TEST_DATABASE_URL to run it)';

t.test('a stale-snapshot writer cannot leave completed_chapters wrong (PostgreSQL)', { skip: NO_CONCURRENT_WRITER }, async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  t.equal(db.kind, 'postgres', 'TEST_DATABASE_URL gives a PostgreSQL database');
  for (const isolationLevel of ISOLATION_LEVELS) {
    const { courseId, chapterId } = await makeCourseWithChapter(db.db);
    const student = await makeUser(db.db);
    const attempt = db.db.transaction(
      async (tx) => {
        await tx.execute(sql`SELECT 1`); // the transaction's snapshot is taken here
        // Another connection enrolls the student and commits (it counts 0 completions: ours is not there yet).
        await db.db.insert(enrollments).values({ userId: student.id, courseId });
        await tx.insert(chapterCompletions).values({ userId: student.id, chapterId, courseId });
      },
      { isolationLevel },
    );
    await t.rejects(attempt, `the ${isolationLevel} completion is refused`);
    const { rows } = await db.db.execute(sql`
      SELECT e.completed_chapters,
             (SELECT count(*) FROM chapter_completions cc WHERE cc.user_id = e.user_id AND cc.course_id = e.course_id)::int AS raw
      FROM enrollments e WHERE e.course_id = ${courseId}`);
    t.same(rows, [{ completed_chapters: 0, raw: 0 }], `${isolationLevel}: the counter equals the raw completions`);
  }
});
