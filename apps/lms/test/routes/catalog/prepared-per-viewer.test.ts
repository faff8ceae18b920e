import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { completeChapter, enroll, makeBundle, makeCategory, makeCourse, makeCourseTree } from '../../helpers/catalog-fixtures.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';
import { countQueries } from '../../helpers/query-counter.js';

// The catalog's statements are prepared once per shape of query (kind of viewer, filters, order)
// and serve every viewer of that shape: who the viewer is, is a value. The attack: a statement
// built or last executed for one user answers another. Two users of each kind take turns on one
// app (so on one set of prepared statements), one after the other and all at once, and each must
// get their own answer: a teacher's own drafts and enrolment codes, an admin's institution's codes,
// a learner's own progress.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const north = await makeInstitution(db, 'North');
const south = await makeInstitution(db, 'South');
const teacherA = await makeUser(db, { role: 'teacher', institutionId: north });
const teacherB = await makeUser(db, { role: 'teacher', institutionId: south });
const adminNorth = await makeUser(db, { role: 'admin', institutionId: north });
const adminSouth = await makeUser(db, { role: 'admin', institutionId: south });
const learnerA = await makeUser(db, { role: 'student', institutionId: north });
const learnerB = await makeUser(db, { role: 'student', institutionId: north });
const category = await makeCategory(db);

const CODE_A = 'NORTH-CODE-1181';
const CODE_B = 'SOUTH-CODE-2292';
const draftA = await makeCourse(db, { teacherId: teacherA.id, institutionId: north, name: 'Draft of A', isPublished: false });
const codedA = await makeCourse(db, {
  teacherId: teacherA.id,
  institutionId: north,
  categoryId: category.id,
  enrollmentType: 'code',
  enrollmentCode: CODE_A,
});
const draftB = await makeCourse(db, { teacherId: teacherB.id, institutionId: south, name: 'Draft of B', isPublished: false });
const codedB = await makeCourse(db, {
  teacherId: teacherB.id,
  institutionId: south,
  categoryId: category.id,
  enrollmentType: 'code',
  enrollmentCode: CODE_B,
});
const shared = await makeCourse(db, { teacherId: teacherA.id, institutionId: north, categoryId: category.id });
const tree = await makeCourseTree(db, shared.id, [2]);
await makeBundle(db, { categoryId: category.id, courseOneId: shared.id, courseTwoId: codedB.id });
// Learner A has done the course's first chapter; learner B is enrolled and has done nothing.
await enroll(db, learnerA.id, shared.id);
await enroll(db, learnerB.id, shared.id);
await completeChapter(db, learnerA.id, tree.modules[0]!.chapters[0]!);

const cookie = async (id: string) => ({ cookie: await sessionCookieFor(app, id) });
const as = {
  teacherA: await cookie(teacherA.id),
  teacherB: await cookie(teacherB.id),
  adminNorth: await cookie(adminNorth.id),
  adminSouth: await cookie(adminSouth.id),
  learnerA: await cookie(learnerA.id),
  learnerB: await cookie(learnerB.id),
};

interface Summary {
  id: string;
  enrollmentCode: string;
  totalProgress: number;
  modules: { chapters: { completionPercentage: number }[] }[];
}
const listOf = async (headers: Record<string, string>, url = '/api/courses?limit=12') => {
  const res = await app.inject({ url, headers });
  t.equal(res.statusCode, 200, `${url}: 200`);
  return { body: res.body, courses: (res.json() as { courses: Summary[] }).courses };
};
const ids = (courses: Summary[]) => courses.map((c) => Number(c.id)).sort((a, b) => a - b);
const codeOf = (courses: Summary[], id: number) => courses.find((c) => c.id === String(id))?.enrollmentCode;

/** The statement texts one request sends. */
async function statementsOf(headers: Record<string, string>, url: string) {
  const counter = countQueries(db);
  try {
    await app.inject({ url, headers });
    return [...counter.statements];
  } finally {
    counter.restore();
  }
}

t.test('two teachers share the page statement and each reads only their own courses', async (t) => {
  const a = await statementsOf(as.teacherA, '/api/courses?limit=12');
  const b = await statementsOf(as.teacherB, '/api/courses?limit=12');
  t.same(b, a, 'the same statement texts for both teachers: one prepared statement serves both');
  t.notOk(
    a.some((text) => text.includes(teacherA.id) || text.includes(teacherB.id)),
    "no teacher's id is in a statement's text",
  );

  for (let round = 0; round < 3; round++) {
    const forA = await listOf(as.teacherA);
    const forB = await listOf(as.teacherB);
    t.same(
      ids(forA.courses),
      [draftA.id, codedA.id, shared.id].sort((x, y) => x - y),
      `round ${round}: A lists A's courses, the draft too`,
    );
    t.same(
      ids(forB.courses),
      [draftB.id, codedB.id].sort((x, y) => x - y),
      `round ${round}: B lists B's courses, the draft too`,
    );
    t.equal(codeOf(forA.courses, codedA.id), CODE_A, `round ${round}: A reads A's code`);
    t.equal(codeOf(forB.courses, codedB.id), CODE_B, `round ${round}: B reads B's code`);
    t.notMatch(forA.body, CODE_B, `round ${round}: B's code is nowhere in A's answer`);
    t.notMatch(forB.body, CODE_A, `round ${round}: A's code is nowhere in B's answer`);
    t.notMatch(forA.body, 'Draft of B', `round ${round}: B's draft is nowhere in A's answer`);
    t.notMatch(forB.body, 'Draft of A', `round ${round}: A's draft is nowhere in B's answer`);
  }

  // All at once: the statements run on several connections, interleaved.
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => listOf(i % 2 === 0 ? as.teacherA : as.teacherB)));
  for (const [i, answer] of answers.entries()) {
    const mine = i % 2 === 0 ? [draftA.id, codedA.id, shared.id] : [draftB.id, codedB.id];
    t.same(
      ids(answer.courses),
      mine.sort((x, y) => x - y),
      `concurrent ${i}: only the caller's own courses`,
    );
    t.notMatch(answer.body, i % 2 === 0 ? CODE_B : CODE_A, `concurrent ${i}: not the other teacher's code`);
  }
});

t.test("two admins list their own institution's drafts and codes, and only those", async (t) => {
  for (let round = 0; round < 2; round++) {
    for (const [who, own, other, ownCourse, otherCourse, ownDraft, otherDraft] of [
      ['adminNorth', CODE_A, CODE_B, codedA, codedB, draftA, draftB],
      ['adminSouth', CODE_B, CODE_A, codedB, codedA, draftB, draftA],
    ] as const) {
      const { body, courses } = await listOf(as[who], '/api/courses?limit=50');
      t.ok(ids(courses).includes(ownDraft.id), `${who}, round ${round}: its institution's draft listed`);
      t.notOk(ids(courses).includes(otherDraft.id), `${who}, round ${round}: the other institution's draft is not`);
      t.ok(ids(courses).includes(otherCourse.id), `${who}, round ${round}: the other institution's buyer-visible course is`);
      t.notMatch(body, otherDraft.name, `${who}, round ${round}: the other draft is nowhere in the answer`);
      t.equal(codeOf(courses, ownCourse.id), own, `${who}, round ${round}: its institution's code`);
      t.equal(codeOf(courses, otherCourse.id), '', `${who}, round ${round}: the other institution's course has no code`);
      t.notMatch(body, other, `${who}, round ${round}: the other code is nowhere in the answer`);
    }
  }
});

t.test('two learners read their own progress from the shared learner statement, on the list and the bundles', async (t) => {
  const progressOf = (courses: Summary[]) => {
    const course = courses.find((c) => c.id === String(shared.id));
    return course?.modules[0]?.chapters.map((c) => c.completionPercentage);
  };
  for (let round = 0; round < 2; round++) {
    for (const [who, expected] of [
      ['learnerA', [100, 0]],
      ['learnerB', [0, 0]],
    ] as const) {
      const list = await listOf(as[who], `/api/courses?limit=12&categoryId=${category.id}`);
      t.same(progressOf(list.courses), expected, `${who}, round ${round}: the list shows the learner's own chapters`);
      const bundles = await app.inject({ url: '/api/recommended-courses', headers: as[who] });
      t.equal(bundles.statusCode, 200);
      const [bundle] = (bundles.json() as { recommendedCourses: { courseOne: Summary }[] }).recommendedCourses;
      t.same(progressOf([bundle!.courseOne]), expected, `${who}, round ${round}: the bundle shows the learner's own chapters`);
    }
  }
  const together = await Promise.all(
    [as.learnerA, as.learnerB, as.learnerA, as.learnerB].map((h) => listOf(h, `/api/courses?limit=12&categoryId=${category.id}`)),
  );
  t.same(
    together.map((answer) => progressOf(answer.courses)),
    [
      [100, 0],
      [0, 0],
      [100, 0],
      [0, 0],
    ],
    'all at once: each learner their own progress',
  );
});

t.test('one shape, two values: the category is a value of the statement, not remembered from the last call', async (t) => {
  const other = await makeCategory(db);
  const lone = await makeCourse(db, { teacherId: teacherB.id, institutionId: south, categoryId: other.id });
  for (let round = 0; round < 2; round++) {
    const first = await listOf(as.learnerA, `/api/courses?limit=12&categoryId=${category.id}`);
    const second = await listOf(as.learnerA, `/api/courses?limit=12&categoryId=${other.id}`);
    t.same(
      ids(first.courses),
      [codedA.id, codedB.id, shared.id].sort((x, y) => x - y),
      `round ${round}: the first category's courses`,
    );
    t.same(ids(second.courses), [lone.id], `round ${round}: the second category's course only`);
  }
});
