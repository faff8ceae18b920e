/**
 * PROPOSED, not part of the suite (tap only runs test/**): shows a limit of migration
 * 0002_counters. Its triggers keep enrollments.completed_chapters right only when writers run
 * under READ COMMITTED. A REPEATABLE READ or SERIALIZABLE transaction whose snapshot predates an
 * enrollment committed by another connection writes a completion, its trigger's UPDATE does not
 * see the enrollment, and the counter stays one short (SSI does not catch it when the other
 * writer is READ COMMITTED). The proposed migration (see the progress report) makes
 * lms_user_course_lock() refuse such transactions; with it, this test passes.
 *
 * Run on PostgreSQL only:
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tap test-proposed/counters-isolation.test.ts
 */
import { chapterCompletions, chapters, courses, enrollments, modules } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { makeInstitution, makeUser } from '../test/helpers/fixtures.js';

for (const isolationLevel of ['repeatable read', 'serializable'] as const) {
  t.test(`a ${isolationLevel} writer cannot leave completed_chapters wrong`, async (t) => {
    const db = await createTestDb();
    t.teardown(() => db.destroy());
    if (db.kind !== 'postgres') throw new Error('needs TEST_DATABASE_URL (two connections)');
    const institutionId = await makeInstitution(db.db);
    const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
    const student = await makeUser(db.db);
    const [course] = await db.db.insert(courses).values({ name: 'c', teacherId: teacher.id, institutionId }).returning();
    const [mod] = await db.db.insert(modules).values({ courseId: course!.id, name: 'm' }).returning();
    const [chapter] = await db.db.insert(chapters).values({ moduleId: mod!.id, courseId: course!.id, name: 'x' }).returning();

    const attempt = db.db.transaction(
      async (tx) => {
        await tx.execute(sql`SELECT 1`); // the transaction's snapshot is taken here
        // Another connection enrolls the student and commits (it counts 0 completions: ours is not there yet).
        await db.db.insert(enrollments).values({ userId: student.id, courseId: course!.id });
        await tx.insert(chapterCompletions).values({ userId: student.id, chapterId: chapter!.id, courseId: course!.id });
      },
      { isolationLevel },
    );
    await attempt.catch(() => {}); // refusing the write is a correct outcome; a wrong counter is not
    const { rows } = await db.db.execute(sql`
      SELECT e.completed_chapters,
             (SELECT count(*) FROM chapter_completions cc WHERE cc.user_id = e.user_id AND cc.course_id = e.course_id)::int AS raw
      FROM enrollments e`);
    const row = rows[0] as { completed_chapters: number; raw: number };
    t.equal(row.completed_chapters, row.raw, 'the counter equals the raw completions');
  });
}
