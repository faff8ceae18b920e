import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeBundle, makeCategory, makeCourse } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// A `code` course's enrolment code lets anyone enrol (POST /api/learning/courses/{id}/enrollment):
// the catalog's `enrollmentCode` carries it only for those who manage the course (its teacher, an
// admin of its institution, a super_admin, by session). The attacker's view: students and API
// keys (the owner's included) read the list, the detail, the bundles and the course page and
// never meet the code; the managers read it.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const home = await makeInstitution(db, 'Home');
const elsewhere = await makeInstitution(db, 'Elsewhere');
const owner = await makeUser(db, { role: 'teacher', institutionId: home });
const colleague = await makeUser(db, { role: 'teacher', institutionId: home });
const homeAdmin = await makeUser(db, { role: 'admin', institutionId: home });
const otherAdmin = await makeUser(db, { role: 'admin', institutionId: elsewhere });
const superAdmin = await makeUser(db, { role: 'super_admin' });
const student = await makeUser(db, { role: 'student', institutionId: home });
const category = await makeCategory(db);
const CODE = 'SECRET-ENROL-7731';
const COLLEAGUE_CODE = 'COLLEAGUE-ENROL-5512';
const course = await makeCourse(db, {
  teacherId: owner.id,
  institutionId: home,
  categoryId: category.id,
  enrollmentType: 'code',
  enrollmentCode: CODE,
});
const colleagues = await makeCourse(db, {
  teacherId: colleague.id,
  institutionId: elsewhere,
  categoryId: category.id,
  enrollmentType: 'code',
  enrollmentCode: COLLEAGUE_CODE,
});
await makeBundle(db, { categoryId: category.id, courseOneId: course.id, courseTwoId: colleagues.id });

const headers = {
  ownerKey: { 'x-api-key': await apiKeyFor(db, owner.id) },
  colleagueKey: { 'x-api-key': await apiKeyFor(db, colleague.id) },
  student: { cookie: await sessionCookieFor(app, student.id) },
  colleague: { cookie: await sessionCookieFor(app, colleague.id) },
  otherAdmin: { cookie: await sessionCookieFor(app, otherAdmin.id) },
  owner: { cookie: await sessionCookieFor(app, owner.id) },
  homeAdmin: { cookie: await sessionCookieFor(app, homeAdmin.id) },
  superAdmin: { cookie: await sessionCookieFor(app, superAdmin.id) },
};

interface Summary {
  id: string;
  enrollmentCode: string;
}
interface Bundle {
  courseOne: Summary & { numericId: number };
  courseTwo: Summary & { numericId: number };
}

/** Every answer that could carry the code of `course`, raw, for this caller. */
async function answers(h: Record<string, string>) {
  const list = await app.inject({ url: '/api/courses', headers: h });
  const one = await app.inject({ url: `/api/courses?courseId=${course.id}`, headers: h });
  const detail = await app.inject({ url: `/api/courses/${course.id}`, headers: h });
  const bundles = await app.inject({ url: '/api/recommended-courses', headers: h });
  return { list, one, detail, bundles };
}

for (const who of ['ownerKey', 'colleagueKey', 'student', 'colleague', 'otherAdmin'] as const) {
  t.test(`${who}: never sees the course's code`, async (t) => {
    const { list, one, detail, bundles } = await answers(headers[who]);
    for (const [name, res] of Object.entries({ list, one, detail, bundles })) {
      t.equal(res.statusCode, 200, `${name}: 200`);
      t.notMatch(res.body, CODE, `${name}: the code is nowhere in the answer`);
    }
    const listed = (list.json() as { courses: Summary[] }).courses.find((c) => c.id === String(course.id));
    if (who !== 'colleague') {
      // A teacher's session lists the teacher's own courses only.
      t.equal(listed?.enrollmentCode, '', 'list: the field is there, empty');
    }
    const [bundle] = (bundles.json() as { recommendedCourses: Bundle[] }).recommendedCourses;
    t.equal(bundle!.courseOne.numericId, course.id, 'bundles: the course is in the bundle');
    t.notMatch(bundles.body, COLLEAGUE_CODE, "bundles: nor the other course's code");
    if (!who.endsWith('Key')) {
      const page = await app.inject({ url: `/dashboard/courses/${course.id}`, headers: headers[who] });
      // A teacher's pages show the teacher's own courses only: the colleague gets a 404 page.
      t.equal(page.statusCode, who === 'colleague' ? 404 : 200, 'the course page');
      t.notMatch(page.body, CODE, 'the course page does not show it');
    }
  });
}

for (const who of ['owner', 'homeAdmin', 'superAdmin'] as const) {
  t.test(`${who} (manages the course): reads its code`, async (t) => {
    const { one } = await answers(headers[who]);
    t.equal(one.statusCode, 200);
    t.equal((one.json() as { courses: Summary[] }).courses[0]?.enrollmentCode, CODE, 'the list gives the code');
    const page = await app.inject({ url: `/dashboard/courses/${course.id}`, headers: headers[who] });
    t.equal(page.statusCode, 200);
    t.match(page.body, `<code>${CODE}</code>`, 'the course page shows it');
  });
}

t.test("decided per course: a manager of one course reads no other course's code", async (t) => {
  const res = await app.inject({ url: '/api/recommended-courses', headers: headers.owner });
  t.notMatch(res.body, COLLEAGUE_CODE, "the owner's bundles: the other course (another teacher, another institution) stays hidden");
  const homeAdminList = await app.inject({ url: `/api/courses?courseId=${colleagues.id}`, headers: headers.homeAdmin });
  t.equal(
    (homeAdminList.json() as { courses: Summary[] }).courses[0]?.enrollmentCode,
    '',
    "an admin does not read another institution's code",
  );
  const theirs = await app.inject({ url: `/api/courses?courseId=${colleagues.id}`, headers: headers.colleague });
  t.equal((theirs.json() as { courses: Summary[] }).courses[0]?.enrollmentCode, COLLEAGUE_CODE, 'its own teacher does');
});

t.test('the OpenAPI document says who reads the code', async (t) => {
  const doc = (await app.inject('/docs/json')).body;
  t.match(doc, 'given only to those who manage the course: its teacher, an admin of its institution or a super_admin');
  t.match(doc, 'enrollmentCode is filled only for a session of someone who manages the course');
});
