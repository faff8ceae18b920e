import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import t from 'tap';
import { generateApiKey, generateSessionToken } from '../src/credentials.js';
import { createTestDb } from '../src/testing.js';
import {
  apiKeys,
  bundles,
  certificates,
  chapterCompletions,
  chapters,
  courses,
  enrollments,
  modules,
  purchases,
  questions,
  quizzes,
  sessions,
  users,
} from '../src/schema/index.js';
import { makeCategory, makeCourse } from '../src/testing.js';
import { makeStudent, testDatabaseUrl } from './helpers.js';

t.test('cascades', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const db = h.db;
  const count = async (table: PgTable, where?: SQL) => (await db.select({ n: sql<number>`count(*)::int` }).from(table).where(where))[0]!.n;

  t.test('deleting a course removes its modules, chapters, quizzes, enrollments and completions', async (t) => {
    const doomed = await makeCourse(db, {}, { chapters: [3, 3] });
    const kept = await makeCourse(db, { categoryId: (await makeCategory(db)).id }, { chapters: [2] });
    const s = await makeStudent(db);
    const [quiz] = await db
      .insert(quizzes)
      .values({ courseId: doomed.id, scope: 'chapter', chapterId: doomed.chapters[0]!.id, name: 'Q' })
      .returning();
    await db.insert(questions).values({ quizId: quiz!.id, questionText: '?', options: [{ id: 'a', text: 'A', isCorrect: true }] });
    await db.insert(quizzes).values({ courseId: doomed.id, scope: 'final', name: 'Final' });
    await db.insert(enrollments).values([
      { userId: s.id, courseId: doomed.id },
      { userId: s.id, courseId: kept.id },
    ]);
    await db
      .insert(chapterCompletions)
      .values([
        ...doomed.chapters.slice(0, 4).map((c) => ({ userId: s.id, chapterId: c.id, courseId: doomed.id })),
        { userId: s.id, chapterId: kept.chapters[0]!.id, courseId: kept.id },
      ]);
    await db.insert(certificates).values({ userId: s.id, courseId: doomed.id });
    const [bundle] = await db
      .insert(bundles)
      .values({ name: 'B', categoryId: kept.categoryId!, courseOneId: doomed.id, courseTwoId: kept.id })
      .returning();
    await db.insert(purchases).values([
      { userId: s.id, courseId: doomed.id, amount: '100', paidAt: new Date() },
      { userId: s.id, bundleId: bundle!.id, amount: '150', paidAt: new Date() },
    ]);

    await db.delete(courses).where(eq(courses.id, doomed.id));

    const id = doomed.id;
    t.equal(await count(modules, eq(modules.courseId, id)), 0, 'modules gone');
    t.equal(await count(chapters, eq(chapters.courseId, id)), 0, 'chapters gone');
    t.equal(await count(quizzes, eq(quizzes.courseId, id)), 0, 'quizzes gone');
    t.equal(await count(questions, eq(questions.quizId, quiz!.id)), 0, 'questions gone');
    t.equal(await count(enrollments, eq(enrollments.courseId, id)), 0, 'enrollments gone');
    t.equal(await count(chapterCompletions, eq(chapterCompletions.courseId, id)), 0, 'completions gone');
    t.equal(await count(certificates, eq(certificates.courseId, id)), 0, 'certificates gone');
    t.equal(await count(bundles, eq(bundles.id, bundle!.id)), 0, 'a bundle without one of its courses is gone');
    // Money records stay (their course/bundle is forgotten): revenue history is not rewritten.
    t.equal(await count(purchases, eq(purchases.userId, s.id)), 2, 'purchases kept');
    t.equal(await count(purchases, sql`${purchases.courseId} is null and ${purchases.bundleId} is null`), 2);

    // The other course and the student's progress in it are untouched, counters included.
    t.equal(await count(chapters, eq(chapters.courseId, kept.id)), 2);
    const [enr] = await db.select().from(enrollments).where(eq(enrollments.userId, s.id));
    t.match(enr, { courseId: kept.id, completedChapters: 1 });
    const [keptCourse] = await db.select().from(courses).where(eq(courses.id, kept.id));
    t.match(keptCourse, { moduleCount: 1, chapterCount: 2, studentCount: 1 });
  });

  t.test('deleting a module removes its chapters and their completions, and the counters follow', async (t) => {
    const c = await makeCourse(db, {}, { chapters: [2, 2] });
    const s = await makeStudent(db);
    await db.insert(enrollments).values({ userId: s.id, courseId: c.id });
    await db.insert(chapterCompletions).values(c.chapters.map((ch) => ({ userId: s.id, chapterId: ch.id, courseId: c.id })));
    await db.delete(modules).where(eq(modules.id, c.modules[0]!.id));
    t.equal(await count(chapters, eq(chapters.moduleId, c.modules[0]!.id)), 0);
    t.equal(await count(chapterCompletions, eq(chapterCompletions.userId, s.id)), 2);
    const [course] = await db.select().from(courses).where(eq(courses.id, c.id));
    t.match(course, { moduleCount: 1, chapterCount: 2, studentCount: 1 });
    const [enr] = await db.select().from(enrollments).where(eq(enrollments.userId, s.id));
    t.equal(enr!.completedChapters, 2);
  });

  t.test('deleting a user removes their sessions, keys, enrollments and progress', async (t) => {
    const c = await makeCourse(db, {}, { chapters: [2, 2] });
    const s = await makeStudent(db);
    const other = await makeStudent(db);
    for (const u of [s, other]) {
      await db
        .insert(sessions)
        .values({ tokenHash: generateSessionToken().tokenHash, userId: u.id, expiresAt: new Date(Date.now() + 3_600_000) });
      const k = generateApiKey();
      await db.insert(apiKeys).values({ keyHash: k.keyHash, prefix: k.prefix, userId: u.id, name: 'k' });
      await db.insert(enrollments).values({ userId: u.id, courseId: c.id });
      await db.insert(chapterCompletions).values({ userId: u.id, chapterId: c.chapters[0]!.id, courseId: c.id });
    }
    await db.delete(users).where(eq(users.id, s.id));
    for (const table of [sessions, apiKeys, enrollments, chapterCompletions]) {
      t.equal(await count(table, eq(table.userId, s.id)), 0, 'gone for the deleted user');
      t.equal(await count(table, eq(table.userId, other.id)), 1, 'kept for the other user');
    }
    const [course] = await db.select().from(courses).where(eq(courses.id, c.id));
    t.equal(course!.studentCount, 1, 'student count follows');
  });

  t.test('a teacher with courses cannot be deleted', async (t) => {
    const c = await makeCourse(db, {}, { chapters: [2, 2] });
    await t.rejects(db.delete(users).where(eq(users.id, c.teacherId)));
    t.equal(await count(courses, inArray(courses.id, [c.id])), 1);
  });
});
