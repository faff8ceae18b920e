import { OPEN_ENDED_END_DATE } from '@lms/contracts';
import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeBundle, makeCategory, makeCourse, makeCourseTree } from '../../helpers/catalog-fixtures.js';
import { creationHeaders, makeCourseCreator } from '../../helpers/course-creation.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// A course created without dates (a partner's minimal POST /api/courses) must not read as ended.
// The spec types the list's, the bundles' and the created record's endDate as a date-time string
// (never null), so a course without an end reports OPEN_ENDED_END_DATE there (the last instant the
// API knows) and null in the detail, where the spec allows null. It used to report its start (its
// creation time): ended the moment it was made, for any client comparing endDate with now.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const partner = await makeCourseCreator(db, 'partner-dates.example');
const key = await apiKeyFor(db, partner.teacherId);

const created = await app.inject({
  method: 'POST',
  url: '/api/courses',
  headers: creationHeaders(partner.token()),
  payload: { ...partner.body('Tanpa Tanggal'), enrollmentType: 'open', isPurchasable: false },
});
// No assertion at the top level (the root test would end before the fixtures below): a failure throws.
if (created.statusCode !== 201) throw new Error(`course creation: ${created.statusCode} ${created.body}`);
const record = created.json().course;
// Make it buyer-visible (published, with an event code) and learnable, as authoring would.
await db.update(courses).set({ isPublished: true, eventCode: 'EV-UNDATED' }).where(eq(courses.id, record.id));
await makeCourseTree(db, record.id, [1]);
const ended = await makeCourse(db, {
  teacherId: partner.teacherId,
  institutionId: partner.institutionId,
  name: 'Sudah Selesai',
  startDate: new Date('2025-01-01T00:00:00Z'),
  endDate: new Date('2025-02-01T00:00:00Z'),
});

t.test('the created record: the start is the creation time, the end is open', async (t) => {
  t.equal(record.startDate, record.createdAt);
  t.equal(record.endDate, OPEN_ENDED_END_DATE);
  t.ok(Date.parse(record.endDate) > Date.now(), 'not ended');
});

t.test('the list (API key and session) and the detail agree: not ended', async (t) => {
  const list = await app.inject({ url: `/api/courses?courseId=${record.id}`, headers: { 'x-api-key': key } });
  t.equal(list.statusCode, 200, list.body);
  const [listed] = list.json().courses;
  t.match(listed, { id: String(record.id), startDate: record.createdAt, endDate: OPEN_ENDED_END_DATE });
  t.ok(Date.parse(listed.endDate) > Date.parse(listed.startDate), 'ends after it starts');

  const cookie = await sessionCookieFor(app, partner.teacherId);
  const own = (await app.inject({ url: `/api/courses?courseId=${record.id}`, headers: { cookie } })).json().courses[0];
  t.equal(own.endDate, OPEN_ENDED_END_DATE, "the teacher's own view says the same");

  const detail = await app.inject({ url: `/api/courses/${record.id}`, headers: { 'x-api-key': key } });
  t.equal(detail.statusCode, 200, detail.body);
  t.match(detail.json().course, { startDate: null, endDate: null }, 'the detail keeps null, as the spec types it');

  // A course that did end still says when.
  const past = (await app.inject({ url: `/api/courses?courseId=${ended.id}`, headers: { 'x-api-key': key } })).json().courses[0];
  t.equal(past.endDate, '2025-02-01T00:00:00.000Z');
});

t.test('a bundle holding it says the same', async (t) => {
  const category = await makeCategory(db, { code: 'UND', name: 'Undated' });
  await db.update(courses).set({ categoryId: category.id }).where(eq(courses.id, record.id));
  await db.update(courses).set({ categoryId: category.id }).where(eq(courses.id, ended.id));
  await makeBundle(db, { categoryId: category.id, courseOneId: record.id, courseTwoId: ended.id });
  const res = await app.inject({ url: `/api/recommended-courses?categoryId=${category.id}`, headers: { 'x-api-key': key } });
  t.equal(res.statusCode, 200, res.body);
  const bundle = res.json().recommendedCourses[0];
  const [undated] = [bundle.courseOne, bundle.courseTwo].filter((c: { numericId: number }) => c.numericId === record.id);
  t.equal(undated?.endDate, OPEN_ENDED_END_DATE);
});

t.test('the LMS itself agrees: a learner can still enrol', async (t) => {
  const learner = await makeUser(db, { role: 'student' });
  const res = await app.inject({
    method: 'POST',
    url: `/api/learning/courses/${record.id}/enrollment`,
    headers: { cookie: await sessionCookieFor(app, learner.id), 'x-requested-with': 'test' },
  });
  t.ok(res.statusCode === 200 || res.statusCode === 201, `enrolled (${res.statusCode} ${res.body})`);
});
