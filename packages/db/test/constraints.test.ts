import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { createTestDb } from '../src/testing.js';
import { bundles, categories, chapterCompletions, courses, enrollments, purchases, quizzes, users } from '../src/schema/index.js';
import { makeCategory, makeCourse } from '../src/testing.js';
import { makeStudent, refused, testDatabaseUrl } from './helpers.js';

// One database for the file; every case works on rows of its own.
t.test('constraints', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const db = h.db;

  t.test('a student enrolls in a course once', async (t) => {
    const course = await makeCourse(db, {}, { chapters: [2, 2] });
    const s = await makeStudent(db);
    await db.insert(enrollments).values({ userId: s.id, courseId: course.id });
    await refused(t, db.insert(enrollments).values({ userId: s.id, courseId: course.id }), '23505', 'enrollments_user_course_key');
    const rows = await db.select().from(enrollments).where(eq(enrollments.userId, s.id));
    t.equal(rows.length, 1);
  });

  t.test('a bundle pairs two different courses', async (t) => {
    const a = await makeCourse(db, { categoryId: (await makeCategory(db)).id }, { chapters: [2, 2] });
    const b = await makeCourse(db, {}, { chapters: [2, 2] });
    await refused(
      t,
      db.insert(bundles).values({ name: 'Same twice', categoryId: a.categoryId!, courseOneId: a.id, courseTwoId: a.id }),
      '23514',
      'bundles_two_different_courses',
    );
    const [ok] = await db
      .insert(bundles)
      .values({ name: 'Pair', categoryId: a.categoryId!, courseOneId: a.id, courseTwoId: b.id })
      .returning();
    t.ok(ok, 'two different courses are accepted');
    await refused(
      t,
      db.update(bundles).set({ courseTwoId: a.id }).where(eq(bundles.id, ok!.id)),
      '23514',
      'bundles_two_different_courses',
      'an update cannot make it the same course twice either',
    );
    await refused(t, db.update(bundles).set({ price: '-1.00' }).where(eq(bundles.id, ok!.id)), '23514', 'bundles_price_nonnegative');
  });

  t.test('prices and amounts are never negative', async (t) => {
    // The schema's default price, read back below.
    const course = await makeCourse(db, { price: '0' }, { chapters: [2, 2] });
    const { teacherId, institutionId } = course;
    await refused(
      t,
      db.insert(courses).values({ name: 'N', teacherId, institutionId, price: '-0.01' }),
      '23514',
      'courses_price_nonnegative',
    );
    await refused(
      t,
      db.update(courses).set({ priceNonMember: '-5' }).where(eq(courses.id, course.id)),
      '23514',
      'courses_price_non_member_nonnegative',
    );
    await refused(
      t,
      db.update(courses).set({ priceMahasiswa: '-5' }).where(eq(courses.id, course.id)),
      '23514',
      'courses_price_mahasiswa_nonnegative',
    );
    const s = await makeStudent(db);
    await refused(
      t,
      db.insert(purchases).values({ userId: s.id, courseId: course.id, amount: '-100', paidAt: new Date() }),
      '23514',
      'purchases_amount_nonnegative',
    );
    await refused(
      t,
      db.insert(purchases).values({ userId: s.id, courseId: course.id, amount: '100', status: 'paid' }),
      '23514',
      'purchases_paid_has_time',
      'a paid purchase has a payment time',
    );
    const [free] = await db.select({ price: courses.price }).from(courses).where(eq(courses.id, course.id));
    t.equal(free!.price, '0.00', 'prices read back as decimal text');
  });

  t.test('a quiz hangs where its scope says', async (t) => {
    const course = await makeCourse(db, {}, { chapters: [2, 2] });
    const { modules, chapters } = course;
    const base = { courseId: course.id, name: 'Q' };
    await refused(
      t,
      db.insert(quizzes).values({ ...base, scope: 'chapter' }),
      '23514',
      'quizzes_scope_matches_parent',
      'chapter quiz without a chapter',
    );
    await refused(
      t,
      db.insert(quizzes).values({ ...base, scope: 'module', moduleId: modules[0]!.id, chapterId: chapters[0]!.id }),
      '23514',
      'quizzes_scope_matches_parent',
      'module quiz with a chapter',
    );
    await refused(
      t,
      db.insert(quizzes).values({ ...base, scope: 'final', moduleId: modules[0]!.id }),
      '23514',
      'quizzes_scope_matches_parent',
      'final exam on a module',
    );
    await db.insert(quizzes).values([
      { ...base, scope: 'chapter', chapterId: chapters[0]!.id },
      { ...base, scope: 'module', moduleId: modules[0]!.id },
      { ...base, scope: 'final' },
    ]);
    await refused(
      t,
      db.insert(quizzes).values({ ...base, scope: 'final' }),
      '23505',
      'quizzes_one_final_per_course',
      'one final exam per course',
    );
    await refused(
      t,
      db.insert(quizzes).values({ ...base, scope: 'final', name: 'Bad', minimumScore: 101 }),
      '23514',
      'quizzes_minimum_score_range',
    );
  });

  t.test('a completion is of a chapter of the course it names, once per user', async (t) => {
    const a = await makeCourse(db, {}, { chapters: [2, 2] });
    const b = await makeCourse(db, {}, { chapters: [2, 2] });
    const s = await makeStudent(db);
    await refused(
      t,
      db.insert(chapterCompletions).values({ userId: s.id, chapterId: a.chapters[0]!.id, courseId: b.id }),
      '23503',
      'chapter_completions_chapter_fk',
      "another course's chapter",
    );
    await db.insert(chapterCompletions).values({ userId: s.id, chapterId: a.chapters[0]!.id, courseId: a.id });
    await refused(
      t,
      db.insert(chapterCompletions).values({ userId: s.id, chapterId: a.chapters[0]!.id, courseId: a.id }),
      '23505',
      'chapter_completions_pkey',
    );
  });

  t.test('e-mails and category codes are unique; a course needs a real teacher', async (t) => {
    const s = await makeStudent(db);
    await refused(t, db.insert(users).values({ email: s.email, name: 'Copy' }), '23505', 'users_email_key');
    await db.insert(categories).values({ code: 'UNIQ', name: 'One' });
    await refused(t, db.insert(categories).values({ code: 'UNIQ', name: 'Two' }), '23505', 'categories_code_key');
    const { institutionId } = await makeCourse(db, {}, { chapters: [2, 2] });
    await refused(t, db.insert(courses).values({ name: 'Orphan', teacherId: 'nobody', institutionId }), '23503');
    await refused(
      t,
      db.execute(sql`update ${enrollments} set course_id = course_id + 1`),
      'P0001',
      undefined,
      'enrollments cannot move to another course (counters would lie)',
    );
  });
});
