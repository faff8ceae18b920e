import t from 'tap';
import { findAnswerKeys } from '../../helpers/answer-keys.js';
import { buildTestApp } from '../../helpers/app.js';
import { completeChapter, enroll, makeBundle, makeCategory, makeCourse, makeCourseTree } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher' });
const student = await makeUser(db, { role: 'student' });
const superAdmin = await makeUser(db, { role: 'super_admin' });
const finance = await makeCategory(db, { code: 'FIN', name: 'Finance' });
const law = await makeCategory(db, { code: 'LAW', name: 'Law' });

const base = { institutionId, teacherId: teacher.id };
const one = await makeCourse(db, {
  ...base,
  name: 'One',
  price: '100000.10',
  nilaiKum: 1.5,
  categoryId: finance.id,
  coverPicture: 'https://x.test/1.png',
});
const two = await makeCourse(db, { ...base, name: 'Two', price: '200000.20', nilaiKum: 2.25, priceNonMember: '250000.00' });
const three = await makeCourse(db, { ...base, name: 'Three', price: '50000.00', nilaiKum: null });
const draft = await makeCourse(db, { ...base, name: 'Draft', price: '10.00', isPublished: false });
const eventless = await makeCourse(db, { ...base, name: 'Eventless', price: '20.00', eventCode: null });
const tree = await makeCourseTree(db, one.id, [2]);

// Price fallbacks: none set, price only, both set; and bundles holding a hidden course.
const noPrices = await makeBundle(db, { categoryId: finance.id, courseOneId: one.id, courseTwoId: two.id, name: 'No prices' });
const priceOnly = await makeBundle(db, {
  categoryId: finance.id,
  courseOneId: two.id,
  courseTwoId: three.id,
  price: '220000.00',
  name: 'Price only',
});
const bothPrices = await makeBundle(db, {
  categoryId: law.id,
  courseOneId: one.id,
  courseTwoId: three.id,
  price: '120000.00',
  priceNonMember: '140000.00',
  name: 'Both prices',
});
const withDraft = await makeBundle(db, { categoryId: law.id, courseOneId: one.id, courseTwoId: draft.id, name: 'With draft' });
const withEventless = await makeBundle(db, {
  categoryId: finance.id,
  courseOneId: eventless.id,
  courseTwoId: two.id,
  name: 'With eventless',
});

await enroll(db, student.id, one.id);
await completeChapter(db, student.id, tree.modules[0]!.chapters[0]!);

const key = { 'x-api-key': await apiKeyFor(db, teacher.id) };
const studentSession = { cookie: await sessionCookieFor(app, student.id) };
const teacherSession = { cookie: await sessionCookieFor(app, teacher.id) };
const superAdminSession = { cookie: await sessionCookieFor(app, superAdmin.id) };
const get = (query: string, headers: Record<string, string>) =>
  app.inject({ url: `/api/recommended-courses${query ? `?${query}` : ''}`, headers });
const names = async (query: string, headers: Record<string, string> = key) => {
  const res = await get(query, headers);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json().recommendedCourses.map((b: { name: string }) => b.name);
};

t.test('authentication is required', async (t) => {
  const res = await get('', {});
  t.equal(res.statusCode, 401);
  t.equal(res.json().success, false);
});

t.test('price fallbacks, totals and kum', async (t) => {
  const res = await get('', key);
  t.equal(res.statusCode, 200);
  const byName = Object.fromEntries(res.json().recommendedCourses.map((b: { name: string }) => [b.name, b]));
  t.match(byName['No prices'], {
    id: noPrices.id,
    totalPrice: 300000.3,
    price: 300000.3,
    priceNonMember: 300000.3,
    kum: 3.75,
    currency: 'IDR',
  });
  t.match(byName['Price only'], { id: priceOnly.id, totalPrice: 250000.2, price: 220000, priceNonMember: 220000, kum: 2.25 });
  t.match(byName['Both prices'], { id: bothPrices.id, totalPrice: 150000.1, price: 120000, priceNonMember: 140000, kum: 1.5 });
  t.equal(byName['With draft'].kum, 1.5, 'a course without nilaiKum counts 0');
});

t.test('CourseBundle and BundleCourse fields', async (t) => {
  const [b] = (await get('', key)).json().recommendedCourses;
  t.match(b, {
    id: noPrices.id,
    name: 'No prices',
    description: noPrices.description,
    categoryId: finance.id,
    category: { id: finance.id, code: 'FIN', name: 'Finance' },
    createdAt: noPrices.createdAt.toISOString(),
    updatedAt: noPrices.updatedAt.toISOString(),
  });
  t.match(b.courseOne, {
    id: String(one.id),
    numericId: one.id,
    name: 'One',
    description: one.description,
    instructor: one.instructor,
    code: one.courseCode,
    eventCode: one.eventCode,
    nilaiKum: 1.5,
    thumbnail: 'https://x.test/1.png',
    price: 100000.1,
    priceNonMember: null,
    currency: 'IDR',
    categoryId: finance.id,
    enrollmentType: 'code',
    isPurchasable: true,
    previewMode: false,
    startDate: one.createdAt.toISOString(),
    certificate: { isEligible: false, isGenerated: false },
    minPassingScore: 70,
    totalProgress: 0,
    status: 'not-started',
    studentCount: 1,
  });
  t.equal(b.courseOne.modules.length, 1);
  t.equal(b.courseOne.modules[0].chapters.length, 2);
  t.notOk('thumbnail' in b.courseTwo);
  t.equal(b.courseTwo.priceNonMember, 250000);
  t.equal(b.courseTwo.categoryId, null);
});

t.test("the session learner's progress shows in bundle courses", async (t) => {
  const [b] = (await get('', studentSession)).json().recommendedCourses;
  t.match(b.courseOne, { totalProgress: 50, status: 'in-progress' });
  t.match(b.courseTwo, { totalProgress: 0, status: 'not-started' });
});

t.test('public=true keeps bundles whose two courses are both buyer-visible; not implied by a key', async (t) => {
  const all = ['No prices', 'Price only', 'Both prices', 'With draft', 'With eventless'];
  t.same(await names(''), all, 'API key without public: every bundle, in id order');
  t.same(await names('public=false'), all);
  t.same(await names('public=true'), ['No prices', 'Price only', 'Both prices']);
  t.same(await names('public=true', studentSession), ['No prices', 'Price only', 'Both prices'], 'sessions too');
  void [withDraft, withEventless];
  for (const bad of ['yes', '1', '']) {
    const res = await get(`public=${bad}`, key);
    t.equal(res.statusCode, 400);
    t.match(res.json(), { success: false, error: /'public'/ });
  }
});

t.test('categoryId filters', async (t) => {
  t.same(await names(`categoryId=${law.id}`), ['Both prices', 'With draft']);
  t.same(await names(`categoryId=${law.id}&public=true`), ['Both prices']);
  t.same(await names('categoryId=999999'), []);
  for (const bad of ['abc', '0', '-1', '1.5', 'uncategorized']) {
    const res = await get(`categoryId=${bad}`, key);
    t.equal(res.statusCode, 400, `categoryId=${bad}`);
    t.match(res.json(), { success: false, error: /'categoryId'/ });
  }
});

t.test('no answer key anywhere in lists and bundles, whoever asks', async (t) => {
  for (const [who, headers] of Object.entries({ key, studentSession, teacherSession, superAdminSession })) {
    const bundles = await get('', headers);
    t.same(findAnswerKeys(bundles.json()), [], `bundles for ${who}`);
    const courses = await app.inject({ url: '/api/courses', headers });
    t.equal(courses.statusCode, 200);
    // The final exam's questions (without keys) only for the course's managers (the content rule).
    t.equal(
      courses.json().courses.some((c: { finalExam: { questions: unknown[] } }) => c.finalExam.questions.length > 0),
      who === 'teacherSession' || who === 'superAdminSession',
      `final exam questions for ${who}: only for the course's managers`,
    );
    t.same(findAnswerKeys(courses.json()), [], `course list for ${who}`);
  }
});
