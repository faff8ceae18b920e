import { OPEN_ENDED_END_DATE } from '@lms/contracts';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import {
  attemptQuiz,
  completeChapter,
  enroll,
  issueCertificate,
  makeCategory,
  makeCourse,
  makeCourseTree,
  makeModule,
} from '../../helpers/catalog-fixtures.js';
import { makeRoleCast } from '../../helpers/cast.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';
import { quizzes } from '@lms/db';
import { and, eq } from 'drizzle-orm';

// One database and app for the whole file: the fixture world below is read-only for the tests.
const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db);
const { teacher, otherTeacher, admin, superAdmin, student } = await makeRoleCast(app, db, { institutionId });
const otherStudent = await makeUser(db, { role: 'student' });
// An admin of another institution: staff see the drafts of the courses they manage only.
const foreignAdmin = await makeUser(db, { role: 'admin', institutionId: await makeInstitution(db, 'Elsewhere') });

const finance = await makeCategory(db, { code: 'FINx', name: 'Finance Basics' });
const medicine = await makeCategory(db, { code: 'MEDq', name: 'Clinical Medicine' });

const base = { institutionId };
// Each searchable field gets one distinctive word, on one course only.
const alpha = await makeCourse(db, {
  ...base,
  teacherId: teacher.id,
  name: 'Alpha Accounting',
  categoryId: finance.id,
  coverPicture: 'https://cdn.example.test/alpha.png',
  priceNonMember: '150000.50',
  priceMahasiswa: '50000.00',
  nilaiKum: 2.5,
  admissions: { requirements: 'None', totalCost: 100 },
});
const draft = await makeCourse(db, { ...base, teacherId: teacher.id, name: 'Draft Zeta', isPublished: false, categoryId: finance.id });
const noEvent = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'Eventless Eta', eventCode: null });
const beta = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'beta Biology', description: 'Cells and QUASARS of life' });
const gamma = await makeCourse(db, {
  ...base,
  teacherId: otherTeacher.id,
  name: 'Gamma Geology',
  instructor: 'Dr. Hildegard',
  categoryId: medicine.id,
});
const delta = await makeCourse(db, { ...base, teacherId: teacher.id, name: 'Delta Dynamics', courseCode: 'XKCD-42' });
const pct = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'Save 50% now' });
const pctDecoy = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'Save 500 now' });
const under = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'snake_case style' });
const underDecoy = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'snakeXcase style' });
const slash = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'path a\\b here' });
const slashDecoy = await makeCourse(db, { ...base, teacherId: otherTeacher.id, name: 'path ab here' });

const visible = [alpha, beta, gamma, delta, pct, pctDecoy, under, underDecoy, slash, slashDecoy];
const everything = [alpha, draft, noEvent, ...visible.slice(1)];

// Sorting material: modules and enrollments (students), via the counters the triggers keep.
const alphaTree = await makeCourseTree(db, alpha.id, [2, 1]);
await makeModule(db, beta.id);
await makeModule(db, beta.id);
await makeModule(db, beta.id);
await makeModule(db, gamma.id);
for (const u of [student, otherStudent, admin]) await enroll(db, u.id, gamma.id);
await enroll(db, otherStudent.id, delta.id);
await enroll(db, admin.id, delta.id);

// The student's progress in alpha: enrolled, first chapter of module 1 done, one failed final attempt.
await enroll(db, student.id, alpha.id);
await completeChapter(db, student.id, alphaTree.modules[0]!.chapters[0]!);
await passChapterQuiz(student.id, alphaTree.modules[0]!.chapters[0]!.id);
await attemptQuiz(db, student.id, alphaTree.finalQuizId, 40, false);

/** A passed attempt at the chapter's quiz (the next chapter waits for it: the unlock rule). */
async function passChapterQuiz(userId: string, chapterId: number) {
  const [quiz] = await db
    .select({ id: quizzes.id })
    .from(quizzes)
    .where(and(eq(quizzes.chapterId, chapterId), eq(quizzes.scope, 'chapter')));
  await attemptQuiz(db, userId, quiz!.id, 100, true);
}

const teacherKey = await apiKeyFor(db, teacher.id);
const otherTeacherKey = await apiKeyFor(db, otherTeacher.id);
const cookies = {
  teacher: teacher.cookie,
  admin: admin.cookie,
  foreignAdmin: await sessionCookieFor(app, foreignAdmin.id),
  superAdmin: superAdmin.cookie,
  student: student.cookie,
  otherStudent: await sessionCookieFor(app, otherStudent.id),
};
const asKey = (key = teacherKey) => ({ 'x-api-key': key });
const asSession = (cookie: string) => ({ cookie });

async function list(headers: Record<string, string>, query = '') {
  return app.inject({ method: 'GET', url: `/api/courses${query ? `?${query}` : ''}`, headers });
}
async function names(headers: Record<string, string>, query = ''): Promise<string[]> {
  const res = await list(headers, query);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json().courses.map((c: { name: string }) => c.name);
}
const newestFirst = (cs: { id: number; name: string }[]) => [...cs].sort((a, b) => b.id - a.id).map((c) => c.name);

t.test('authentication', async (t) => {
  const none = await list({});
  t.equal(none.statusCode, 401);
  t.same(none.json(), { success: false, error: none.json().error });
  t.type(none.json().error, 'string');
  const bad = await list({ 'x-api-key': 'lms_key_nope' });
  t.equal(bad.statusCode, 401);
  t.equal(bad.json().success, false);
});

t.test('visibility by caller kind', async (t) => {
  t.same(await names(asKey()), newestFirst(visible), 'API key: buyer-visible only, even its own drafts hidden');
  t.same(await names(asKey(), 'public=false'), newestFirst(visible), 'API key: public=false changes nothing');
  t.same(await names(asKey(), 'public=true'), newestFirst(visible), 'API key: public=true, same dataset');
  t.same(await names(asKey(otherTeacherKey)), newestFirst(visible), "another teacher's key: same dataset");
  t.same(await names(asSession(cookies.teacher)), newestFirst([alpha, draft, delta]), 'teacher session: own courses, drafts included');
  t.same(await names(asSession(cookies.teacher), 'public=true'), newestFirst([alpha, draft, delta]), 'public has no effect on a session');
  t.same(await names(asSession(cookies.admin)), newestFirst(everything), "admin session: the institution's courses, drafts included");
  t.same(await names(asSession(cookies.foreignAdmin)), newestFirst(visible), "another institution's admin: buyer-visible only");
  t.same(await names(asSession(cookies.foreignAdmin), `courseId=${draft.id}`), [], "another institution's admin: not the draft by its id");
  t.same(await names(asSession(cookies.superAdmin)), newestFirst(everything), 'super_admin session: everything');
  t.same(await names(asSession(cookies.student)), newestFirst(visible), 'student session: buyer-visible');
});

t.test('every PublicCourse field with the spec types; not-started defaults for API keys', async (t) => {
  const res = await list(asKey(), `courseId=${alpha.id}`);
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.success, true);
  t.equal(body.courses.length, 1);
  const c = body.courses[0];
  t.match(c, {
    id: String(alpha.id),
    name: 'Alpha Accounting',
    code: alpha.courseCode,
    description: alpha.description,
    instructor: alpha.instructor,
    enrollmentType: 'code',
    enrollmentCode: '',
    isPurchasable: true,
    price: 100000,
    priceNonMember: 150000.5,
    priceMahasiswa: 50000,
    currency: 'IDR',
    previewMode: false,
    eventCode: alpha.eventCode,
    nilaiKum: 2.5,
    categoryId: finance.id,
    category: { id: finance.id, code: 'FINx', name: 'Finance Basics' },
    thumbnail: 'https://cdn.example.test/alpha.png',
    moduleCount: 2,
    admissions: { requirements: 'None', totalCost: 100 },
    academics: null,
    tuitionAndFinancing: null,
    careers: null,
    studentExperience: null,
    certificate: { isEligible: false, isGenerated: false },
    minPassingScore: 70,
    totalProgress: 0,
    status: 'not-started',
    studentCount: 1,
  });
  t.equal(c.startDate, alpha.createdAt.toISOString(), 'no start date: the creation time');
  t.equal(c.endDate, OPEN_ENDED_END_DATE, 'no end date: the course runs on');
  t.same(
    c.moduleSummaries,
    alphaTree.modules.map((m, i) => ({ id: String(m.module.id), title: m.module.name, order: i + 1, chapterCount: m.chapters.length })),
  );
  t.equal(c.modules.length, 2);
  const [m1, m2] = c.modules;
  t.match(m1, { id: String(alphaTree.modules[0]!.module.id), order: 1, chapterCount: 2, isUnlocked: true, completionPercentage: 0 });
  t.match(m1.moduleQuiz, { type: 'module', questionCount: 1 });
  t.same(
    m1.chapters.map((ch: { isUnlocked: boolean; completionPercentage: number }) => [ch.isUnlocked, ch.completionPercentage]),
    [
      [true, 0],
      [false, 0],
    ],
    'API key: first chapter of the first module unlocked, nothing completed',
  );
  t.match(m1.chapters[0], {
    title: alphaTree.modules[0]!.chapters[0]!.name,
    order: 1,
    contents: [],
    quiz: { type: 'chapter', questionCount: 1 },
  });
  t.match(m2, { isUnlocked: false, completionPercentage: 0 });
  t.match(c.finalExam, {
    id: String(alphaTree.finalQuizId),
    title: 'Final exam',
    type: 'final',
    // The course's minPassingScore (70), the pass mark the learning routes apply, not the quiz row's 75.
    minimumScore: 70,
    attempts: 0,
    maxAttempts: 2,
    isPassed: false,
  });
  t.same(c.finalExam.questions, [], "an API key reads no final exam question (the content rule: its course's managers only)");
  // The owner's session reads them, never with an answer key.
  const [owned] = (await list(asSession(cookies.teacher), `courseId=${alpha.id}`)).json().courses;
  t.same(Object.keys(owned.finalExam.questions[0]).sort(), [
    'id',
    'options',
    'orderIndex',
    'points',
    'questionText',
    'questionType',
    'quizId',
  ]);
  t.same(owned.finalExam.questions[0].options, [
    { id: 'a', text: 'Right' },
    { id: 'b', text: 'Wrong' },
  ]);

  const [noThumb] = (await list(asKey(), `courseId=${beta.id}`)).json().courses;
  t.notOk('thumbnail' in noThumb, 'thumbnail is absent without a cover picture');
  t.equal(noThumb.category, null);
  t.equal(noThumb.categoryId, null);
  t.equal(noThumb.priceNonMember, null);
  t.equal(noThumb.nilaiKum, null);
  t.match(noThumb.finalExam, { id: '', type: 'final', questions: [], attempts: 0, isPassed: false });
});

t.test('learner fields come from the session learner', async (t) => {
  const [c] = (await list(asSession(cookies.student), `courseId=${alpha.id}`)).json().courses;
  t.equal(c.totalProgress, 33.33, '1 of 3 chapters');
  t.equal(c.status, 'in-progress');
  t.same(c.certificate, { isEligible: false, isGenerated: false });
  t.match(c.finalExam, { attempts: 1, isPassed: false });
  const [m1, m2] = c.modules;
  t.equal(m1.completionPercentage, 50);
  t.same(
    m1.chapters.map((ch: { isUnlocked: boolean; completionPercentage: number }) => [ch.isUnlocked, ch.completionPercentage]),
    [
      [true, 100],
      [true, 0],
    ],
    'the chapter after a completed one whose quiz is passed unlocks',
  );
  t.equal(m2.isUnlocked, false, 'module 2 waits for module 1');

  const [other] = (await list(asSession(cookies.otherStudent), `courseId=${alpha.id}`)).json().courses;
  t.match(other, { totalProgress: 0, status: 'not-started' }, 'another student sees their own (empty) progress');

  // Completing module 1 unlocks module 2; finishing everything and passing the final completes it.
  const learner = await makeUser(db, { role: 'student' });
  const cookie = await sessionCookieFor(app, learner.id);
  await enroll(db, learner.id, alpha.id);
  for (const ch of alphaTree.modules[0]!.chapters) await completeChapter(db, learner.id, ch);
  let [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.equal(mine.modules[1].isUnlocked, false, 'chapters completed but their quizzes not passed: module 2 stays locked');
  for (const ch of alphaTree.modules[0]!.chapters) await passChapterQuiz(learner.id, ch.id);
  [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.equal(mine.modules[1].isUnlocked, false, 'module 2 waits for the module quiz too');
  const [moduleQuiz] = await db
    .select({ id: quizzes.id })
    .from(quizzes)
    .where(and(eq(quizzes.moduleId, alphaTree.modules[0]!.module.id), eq(quizzes.scope, 'module')));
  await attemptQuiz(db, learner.id, moduleQuiz!.id, 80, true);
  [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.equal(mine.modules[1].isUnlocked, true);
  t.equal(mine.modules[1].chapters[0].isUnlocked, true);
  t.equal(mine.totalProgress, 66.67);
  await completeChapter(db, learner.id, alphaTree.modules[1]!.chapters[0]!);
  [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.match(
    mine,
    { totalProgress: 100, status: 'in-progress', certificate: { isEligible: false, isGenerated: false } },
    'final not passed yet',
  );
  await attemptQuiz(db, learner.id, alphaTree.finalQuizId, 90, true);
  [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.match(mine, { status: 'completed', certificate: { isEligible: true, isGenerated: false }, finalExam: { attempts: 1, isPassed: true } });
  await issueCertificate(db, learner.id, alpha.id);
  [mine] = (await list(asSession(cookie), `courseId=${alpha.id}`)).json().courses;
  t.same(mine.certificate, { isEligible: true, isGenerated: true });
});

t.test('sort orders, each with an id tiebreak', async (t) => {
  const byName = [...visible].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || b.id - a.id);
  t.same(
    await names(asKey(), 'sortBy=name'),
    byName.map((c) => c.name),
    'name: case-insensitive A to Z',
  );
  t.same(
    await names(asKey(), 'sortBy=students'),
    [gamma, delta, alpha, ...newestFirst(visible.filter((c) => ![gamma, delta, alpha].includes(c))).map((n) => ({ name: n }))].map(
      (c) => c.name,
    ),
    'students: most enrolled first, ties newest first',
  );
  t.same(
    await names(asKey(), 'sortBy=modules'),
    [beta, alpha, gamma, ...newestFirst(visible.filter((c) => ![beta, alpha, gamma].includes(c))).map((n) => ({ name: n }))].map(
      (c) => c.name,
    ),
    'modules: most modules first, ties newest first',
  );
  t.same(await names(asKey()), newestFirst(visible), 'default: newest first');
  const bad = await list(asKey(), 'sortBy=price');
  t.equal(bad.statusCode, 400);
  t.match(bad.json().error, /sortBy/);
});

t.test('search: each of the six fields, case-insensitive', async (t) => {
  t.same(await names(asKey(), 'search=aLPHA%20accOUNTING'), ['Alpha Accounting'], 'name');
  t.same(await names(asKey(), 'search=quasars'), ['beta Biology'], 'description');
  t.same(await names(asKey(), 'search=HILDEGARD'), ['Gamma Geology'], 'instructor');
  t.same(await names(asKey(), 'search=xkcd-4'), ['Delta Dynamics'], 'course code');
  t.same(await names(asKey(), 'search=finx'), ['Alpha Accounting'], 'category code (drafts stay hidden from keys)');
  t.same(await names(asSession(cookies.admin), 'search=finx'), newestFirst([alpha, draft]), 'category code, admin sees the draft too');
  t.same(await names(asKey(), 'search=clinical%20MEDICINE'), ['Gamma Geology'], 'category name');
  t.same(await names(asKey(), 'search=nothing-matches-this'), []);
  t.same(await names(asKey(), 'search=%20%20'), newestFirst(visible), 'blank search: no filter');
});

t.test('search: %, _ and \\ are literal characters', async (t) => {
  t.same(await names(asKey(), `search=${encodeURIComponent('50%')}`), ['Save 50% now']);
  t.same(await names(asKey(), `search=${encodeURIComponent('%')}`), ['Save 50% now'], 'a lone % is not "anything"');
  t.same(await names(asKey(), `search=${encodeURIComponent('SNAKE_CASE')}`), ['snake_case style']);
  t.same(await names(asKey(), `search=${encodeURIComponent('_')}`), ['snake_case style'], 'a lone _ is not "any character"');
  t.same(await names(asKey(), `search=${encodeURIComponent('a\\b')}`), ['path a\\b here']);
  t.same(await names(asKey(), `search=${encodeURIComponent('\\')}`), ['path a\\b here'], 'a lone backslash is not an escape');
  void [pct, pctDecoy, under, underDecoy, slash, slashDecoy];
  const tooLong = await list(asKey(), `search=${'x'.repeat(201)}`);
  t.equal(tooLong.statusCode, 400);
  t.match(tooLong.json().error, /search/);
  const control = await list(asKey(), 'search=a%1Fb');
  t.equal(control.statusCode, 400);
  t.match(control.json().error, /search/);
});

t.test('categoryId: a number or uncategorized', async (t) => {
  t.same(await names(asKey(), `categoryId=${finance.id}`), ['Alpha Accounting']);
  t.same(await names(asKey(), `categoryId=${medicine.id}`), ['Gamma Geology']);
  t.same(await names(asKey(), 'categoryId=uncategorized'), newestFirst(visible.filter((c) => c.categoryId === null)));
  t.same(await names(asKey(), 'categoryId=999999'), []);
  for (const bad of ['abc', '-1', '0', '1.5', 'Uncategorized', '']) {
    const res = await list(asKey(), `categoryId=${bad}`);
    t.equal(res.statusCode, 400, `categoryId=${bad}`);
    t.same(res.json(), { success: false, error: res.json().error });
    t.match(res.json().error, /categoryId/);
  }
});

t.test('pagination: totals, slices, defaults, the unpaginated cap', async (t) => {
  const all = newestFirst(visible);
  const p1 = (await list(asKey(), 'page=1&limit=4')).json();
  t.same(
    p1.courses.map((c: { name: string }) => c.name),
    all.slice(0, 4),
  );
  t.same(p1.pagination, { page: 1, limit: 4, total: 10, totalPages: 3 });
  const p3 = (await list(asKey(), 'page=3&limit=4')).json();
  t.same(
    p3.courses.map((c: { name: string }) => c.name),
    all.slice(8),
  );
  t.same(p3.pagination, { page: 3, limit: 4, total: 10, totalPages: 3 });
  const past = (await list(asKey(), 'page=9&limit=4')).json();
  t.same(past.courses, []);
  t.same(past.pagination, { page: 9, limit: 4, total: 10, totalPages: 3 });
  t.same((await list(asKey(), 'page=1')).json().pagination, { page: 1, limit: 12, total: 10, totalPages: 1 }, 'limit defaults to 12');
  t.same((await list(asKey(), 'limit=3')).json().pagination, { page: 1, limit: 3, total: 10, totalPages: 4 }, 'page defaults to 1');
  t.same((await list(asKey(), 'limit=50')).json().pagination.limit, 50);
  t.same((await list(asKey(), 'limit=1')).json().courses.length, 1);
  t.same(
    (await list(asKey())).json().pagination,
    { page: 1, limit: 200, total: 10, totalPages: 1 },
    'no page or limit: the cap, pagination included',
  );
  const filtered = (await list(asKey(), `search=save&limit=1`)).json();
  t.same(filtered.pagination, { page: 1, limit: 1, total: 2, totalPages: 2 }, 'total counts the same filter as the data');
  const empty = (await list(asKey(), 'search=zzzz-none&page=1')).json();
  t.same(empty.pagination, { page: 1, limit: 12, total: 0, totalPages: 0 });

  for (const [name, bad] of [
    ['page', '0'],
    ['page', '-1'],
    ['page', 'abc'],
    ['page', '1.5'],
    ['page', '0x10'],
    ['page', ''],
    ['limit', '0'],
    ['limit', '51'],
    ['limit', 'ten'],
    ['limit', '1e1'],
    ['page', '1&page=2'],
  ] as const) {
    const res = await list(asKey(), `${name}=${bad}`);
    t.equal(res.statusCode, 400, `${name}=${bad}`);
    t.match(res.json(), { success: false, error: new RegExp(`'${name}'`) });
  }
});

t.test('the unpaginated cap is 200', async (t) => {
  const cap = await buildTestApp(t);
  const capDb = cap.db.db;
  const inst = await makeInstitution(capDb);
  const owner = await makeUser(capDb, { role: 'teacher' });
  const { courses } = await import('@lms/db');
  await capDb.insert(courses).values(
    Array.from({ length: 205 }, (_, i) => ({
      name: `Bulk ${i}`,
      teacherId: owner.id,
      institutionId: inst,
      isPublished: true,
      eventCode: `B${i}`,
    })),
  );
  const key = await apiKeyFor(capDb, owner.id);
  const res = await cap.app.inject({ url: '/api/courses', headers: { 'x-api-key': key } });
  t.equal(res.statusCode, 200);
  t.equal(res.json().courses.length, 200);
  t.same(res.json().pagination, { page: 1, limit: 200, total: 205, totalPages: 2 });
});

t.test('public and courseId parameters', async (t) => {
  for (const bad of ['yes', '1', 'TRUE', '']) {
    const res = await list(asKey(), `public=${bad}`);
    t.equal(res.statusCode, 400, `public=${bad}`);
    t.match(res.json().error, /'public'/);
  }
  t.same(await names(asKey(), `courseId=${gamma.id}`), ['Gamma Geology'], 'deep link');
  const hidden = (await list(asKey(), `courseId=${draft.id}`)).json();
  t.same(hidden.courses, [], 'deep link to a course the caller may not see: empty');
  t.equal(hidden.pagination.total, 0);
  t.same(await names(asSession(cookies.teacher), `courseId=${draft.id}`), ['Draft Zeta'], "the owner's session reaches its draft");
  t.same(await names(asKey(), `courseId=${noEvent.id}`), []);
  for (const bad of ['abc', '0', '-3', '2.5', '99999999999']) {
    const res = await list(asKey(), `courseId=${bad}`);
    t.equal(res.statusCode, 400, `courseId=${bad}`);
    t.match(res.json().error, /'courseId'/);
  }
  t.same(await names(asKey(), 'courseId=2147483647'), [], 'the largest id is valid, just unknown');
});
