import { chapterCompletions, chapters, courses, enrollments, modules, questions, quizAttempts, quizzes } from '@lms/db';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeBundle, makeCategory } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';
import { countQueries } from '../../helpers/query-counter.js';

// docs/architecture.md, "Performance shape": the catalog costs a bounded number of SQL statements
// whatever the page size. The statements are counted at the driver (every one Drizzle sends), for 1
// course and for 50 courses each with modules, chapters, quizzes, questions and a learner's
// progress: the two counts must be the same, so nothing is fetched per course.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher' });
const student = await makeUser(db, { role: 'student' });
const category = await makeCategory(db);

const COURSES = 60;
// Bulk inserts: one statement per table, so the fixture stays cheap.
const courseRows = await db
  .insert(courses)
  .values(
    Array.from({ length: COURSES }, (_, i) => ({
      name: `Course ${i}`,
      teacherId: teacher.id,
      institutionId,
      categoryId: category.id,
      isPublished: true,
      eventCode: `EV${i}`,
    })),
  )
  .returning({ id: courses.id });
const moduleRows = await db
  .insert(modules)
  .values(courseRows.flatMap((c) => [1, 2].map((orderIndex) => ({ courseId: c.id, name: `M${orderIndex}`, orderIndex }))))
  .returning({ id: modules.id, courseId: modules.courseId });
const chapterRows = await db
  .insert(chapters)
  .values(
    moduleRows.flatMap((m) => [1, 2].map((orderIndex) => ({ moduleId: m.id, courseId: m.courseId, name: `C${orderIndex}`, orderIndex }))),
  )
  .returning({ id: chapters.id, courseId: chapters.courseId });
const quizRows = await db
  .insert(quizzes)
  .values([
    ...chapterRows.map((c) => ({ courseId: c.courseId, scope: 'chapter' as const, chapterId: c.id, name: 'chapter quiz' })),
    ...moduleRows.map((m) => ({ courseId: m.courseId, scope: 'module' as const, moduleId: m.id, name: 'module quiz' })),
    ...courseRows.map((c) => ({ courseId: c.id, scope: 'final' as const, name: 'final' })),
  ])
  .returning({ id: quizzes.id, scope: quizzes.scope });
await db.insert(questions).values(
  quizRows.flatMap((q) =>
    [1, 2].map((orderIndex) => ({
      quizId: q.id,
      questionText: `Q${orderIndex}`,
      orderIndex,
      options: [{ id: 'a', text: 'A', isCorrect: true }],
    })),
  ),
);
await db.insert(enrollments).values(courseRows.map((c) => ({ userId: student.id, courseId: c.id })));
await db
  .insert(chapterCompletions)
  .values(chapterRows.filter((_, i) => i % 3 === 0).map((c) => ({ userId: student.id, chapterId: c.id, courseId: c.courseId })));
await db
  .insert(quizAttempts)
  .values(
    quizRows
      .filter((q) => q.scope === 'final')
      .map((q) => ({ userId: student.id, quizId: q.id, score: 50, passed: false, submittedAt: new Date() })),
  );
for (let i = 0; i + 1 < COURSES; i += 2) {
  await makeBundle(db, { categoryId: category.id, courseOneId: courseRows[i]!.id, courseTwoId: courseRows[i + 1]!.id });
}

const studentSession = { cookie: await sessionCookieFor(app, student.id) };
const ownerSession = { cookie: await sessionCookieFor(app, teacher.id) };
const key = { 'x-api-key': await apiKeyFor(db, teacher.id) };
// The first use of a key records its last use (a write off the request path): get it done.
await app.inject({ url: '/api/courses?limit=1', headers: key });
await new Promise((resolve) => setTimeout(resolve, 50));

const counter = countQueries(db);
t.teardown(() => counter.restore());

async function statementsFor(url: string, headers: Record<string, string>) {
  counter.reset();
  const res = await app.inject({ url, headers });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return { count: counter.statements.length, body: res.json(), statements: [...counter.statements] };
}

t.test('the course list: the same statements for 1 course as for 50, learner included', async (t) => {
  for (const [who, headers, bound] of [
    // Session lookup, page with its total, trees with the learner's records.
    ['student session', studentSession, 3],
    // (The key is cached), page with its total, trees.
    ['API key', key, 2],
  ] as const) {
    const one = await statementsFor('/api/courses?limit=1', headers);
    const fifty = await statementsFor('/api/courses?limit=50', headers);
    const capped = await statementsFor('/api/courses', headers);
    t.equal(one.body.courses.length, 1);
    t.equal(fifty.body.courses.length, 50);
    t.equal(capped.body.courses.length, COURSES);
    t.equal(fifty.body.courses[0].modules[0].chapters.length, 2, 'the page carries its trees');
    t.equal(fifty.count, one.count, `${who}: ${one.count} statements for 1 course, ${fifty.count} for 50`);
    t.equal(capped.count, one.count, `${who}: and for all ${COURSES}`);
    t.ok(fifty.count <= bound, `${who}: ${fifty.count} statements, at most ${bound}`, { statements: fifty.statements });
    t.comment(`${who}: GET /api/courses?limit=50 → ${fifty.count} SQL statements (auth included)`);
  }
  const plain = await statementsFor('/api/courses?limit=50', studentSession);
  const searched = await statementsFor('/api/courses?limit=50&search=course&sortBy=name', studentSession);
  t.equal(searched.count, plain.count, 'search and sort add no statement');
  const page = searched.statements.find((s) => /count\(\*\)/i.test(s));
  t.match(
    page,
    /\(select count\(\*\)::int from "courses" where .*\) .*limit/is,
    'the total is a scalar count subquery of the page statement',
  );
  t.notMatch(searched.statements.join('\n'), /over\s*\(/i, 'no window function counts the rows');
  const pastTheEnd = await statementsFor('/api/courses?limit=50&page=9', studentSession);
  t.same(pastTheEnd.body.courses, []);
  t.equal(pastTheEnd.body.pagination.total, COURSES, 'a page past the end still knows the total');
  t.equal(pastTheEnd.count, plain.count, 'past the end: page + a plain count in place of the trees');
  t.notMatch(pastTheEnd.statements.join('\n'), /json_agg/, 'past the end: no trees and no learner records are loaded');
  t.match(
    plain.statements.find((s) => /completed_chapters/.test(s)),
    /json_agg\(json_build_object\('id', m\.id/,
    "a learner's records come in the trees statement, not one of their own",
  );
});

t.test('the course detail: a fixed number of statements', async (t) => {
  const small = await statementsFor(`/api/courses/${courseRows[0]!.id}`, ownerSession);
  // A bigger course: many more modules, chapters, quizzes and questions.
  const big = courseRows[1]!.id;
  const extra = await db
    .insert(modules)
    .values(Array.from({ length: 10 }, (_, i) => ({ courseId: big, name: `X${i}`, orderIndex: 10 + i })))
    .returning({ id: modules.id });
  const extraChapters = await db
    .insert(chapters)
    .values(extra.flatMap((m) => [1, 2, 3].map((orderIndex) => ({ moduleId: m.id, courseId: big, name: `XC${orderIndex}`, orderIndex }))))
    .returning({ id: chapters.id });
  const extraQuizzes = await db
    .insert(quizzes)
    .values(extraChapters.map((c) => ({ courseId: big, scope: 'chapter' as const, chapterId: c.id, name: 'q' })))
    .returning({ id: quizzes.id });
  await db
    .insert(questions)
    .values(extraQuizzes.flatMap((q) => [1, 2, 3].map((orderIndex) => ({ quizId: q.id, questionText: 'x', orderIndex }))));
  const large = await statementsFor(`/api/courses/${big}`, ownerSession);
  t.equal(large.body.course.modules.length, 12);
  t.equal(large.count, small.count, `${small.count} statements for a small course and for a large one`);
  t.ok(large.count <= 3, `${large.count} statements (auth included): the session, the course row, its tree`);
  const forKey = await statementsFor(`/api/courses/${big}`, key);
  t.equal(forKey.count, small.count - 1, 'an API key (cached): the course row and its outline');
  // An enrolled learner: also their progress, which decides the chapters open to them.
  const forStudent = await statementsFor(`/api/courses/${big}`, studentSession);
  t.equal(forStudent.count, small.count + 1, "a learner: the session, the course row, the learner's progress, the tree");
  t.comment(`GET /api/courses/{id} → ${large.count} SQL statements (auth included)`);
});

t.test('bundles: a fixed number of statements whatever the number of bundles', async (t) => {
  const few = await statementsFor(`/api/recommended-courses?categoryId=${category.id}&public=true`, studentSession);
  t.equal(few.body.recommendedCourses.length, COURSES / 2);
  const other = await makeCategory(db);
  await makeBundle(db, { categoryId: other.id, courseOneId: courseRows[0]!.id, courseTwoId: courseRows[5]!.id });
  const one = await statementsFor(`/api/recommended-courses?categoryId=${other.id}`, studentSession);
  t.equal(one.body.recommendedCourses.length, 1);
  t.equal(few.count, one.count, `${one.count} statements for 1 bundle and for ${COURSES / 2}`);
  t.equal(few.count, 3, "a student's bundles: the session, the bundles, their courses with trees and the learner's records");
  t.comment(`GET /api/recommended-courses → ${few.count} SQL statements (auth included)`);
});
