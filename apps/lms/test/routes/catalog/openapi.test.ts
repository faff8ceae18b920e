import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeBundle, makeCategory, makeCourse, makeCourseTree, enroll } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// The published OpenAPI document must describe what the endpoints really send: each real
// response body below is validated, with ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses), against
// the schema the document gives for its path, method and status.

// CommonJS modules seen from ESM: the class and the plugin are the default export's default.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher' });
const student = await makeUser(db, { role: 'student' });
const superAdmin = await makeUser(db, { role: 'super_admin' });
const category = await makeCategory(db);
const full = await makeCourse(db, {
  institutionId,
  teacherId: teacher.id,
  categoryId: category.id,
  coverPicture: 'https://cdn.example.test/a.png',
  nilaiKum: 3,
  priceNonMember: '10.50',
  priceMahasiswa: '5.00',
  startDate: new Date('2026-02-01T08:00:00Z'),
  endDate: new Date('2026-03-01T08:00:00Z'),
  enrollmentCode: 'JOIN',
  admissions: { requirements: 'r', applicationDeadline: '2026-01-15T00:00:00.000Z', totalCost: 5 },
  tuitionAndFinancing: { paymentOptions: 'card', scholarships: 'some' },
  studentExperience: { facilities: 'f', support: 's', testimonials: 't' },
});
const bare = await makeCourse(db, { institutionId, teacherId: teacher.id });
const draft = await makeCourse(db, { institutionId, teacherId: teacher.id, isPublished: false });
await makeCourseTree(db, full.id, [2, 0, 1]);
await makeCourseTree(db, draft.id, [1]);
await enroll(db, student.id, full.id);
await makeBundle(db, { categoryId: category.id, courseOneId: full.id, courseTwoId: bare.id });
await makeBundle(db, { categoryId: category.id, courseOneId: draft.id, courseTwoId: bare.id, price: '1.00', priceNonMember: '2.00' });

const key = { 'x-api-key': await apiKeyFor(db, teacher.id) };
const studentSession = { cookie: await sessionCookieFor(app, student.id) };
const ownerSession = { cookie: await sessionCookieFor(app, teacher.id) };
const superAdminSession = { cookie: await sessionCookieFor(app, superAdmin.id) };

const doc = (await app.inject('/docs/json')).json();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** Compiles the document's schema for one response, with the components its $refs point into. */
function responseValidator(path: string, status: number) {
  const response = doc.paths[path]?.get?.responses?.[String(status)];
  if (!response) throw new Error(`the document has no ${status} response for GET ${path}`);
  const schema = response.content['application/json'].schema;
  return ajv.compile({ ...schema, components: doc.components });
}

function validates(t: Test, path: string, res: LightMyRequestResponse, expectedStatus: number) {
  t.equal(res.statusCode, expectedStatus, `${path} answered ${expectedStatus}`);
  const validate = responseValidator(path, res.statusCode);
  const ok = validate(res.json());
  t.ok(ok, `${path} ${res.statusCode} body matches the document`, { errors: validate.errors?.slice(0, 5) });
}

t.test('GET /api/courses: 200 for every caller kind, 400, 401', async (t) => {
  for (const headers of [key, studentSession, ownerSession, superAdminSession]) {
    validates(t, '/api/courses', await app.inject({ url: '/api/courses', headers }), 200);
    validates(t, '/api/courses', await app.inject({ url: '/api/courses?page=2&limit=1&sortBy=name', headers }), 200);
  }
  validates(t, '/api/courses', await app.inject({ url: '/api/courses?limit=99', headers: key }), 400);
  validates(t, '/api/courses', await app.inject({ url: '/api/courses' }), 401);
});

t.test('GET /api/courses/{id}: both 200 variants, 400, 401, 404', async (t) => {
  const path = '/api/courses/{id}';
  const publicDetail = await app.inject({ url: `/api/courses/${full.id}`, headers: studentSession });
  validates(t, path, publicDetail, 200);
  validates(t, path, await app.inject({ url: `/api/courses/${full.id}`, headers: key }), 200);
  validates(t, path, await app.inject({ url: `/api/courses/${bare.id}`, headers: key }), 200);
  const ownerDetail = await app.inject({ url: `/api/courses/${full.id}`, headers: ownerSession });
  validates(t, path, ownerDetail, 200);
  validates(t, path, await app.inject({ url: `/api/courses/${draft.id}`, headers: superAdminSession }), 200);

  // The two variants are told apart by the document itself: the public one forbids answer keys.
  const publicSchema = ajv.compile({ $ref: '#/components/schemas/CourseDetailResponse', components: doc.components });
  const answersSchema = ajv.compile({ $ref: '#/components/schemas/CourseDetailWithAnswersResponse', components: doc.components });
  t.ok(publicSchema(publicDetail.json()), 'a student gets the public variant');
  t.notOk(answersSchema(publicDetail.json()), 'which is not the answer-key variant');
  t.ok(answersSchema(ownerDetail.json()), 'the owner gets the answer-key variant');
  t.notOk(publicSchema(ownerDetail.json()), 'which the public variant rejects');

  validates(t, path, await app.inject({ url: '/api/courses/abc', headers: key }), 400);
  validates(t, path, await app.inject({ url: `/api/courses/${full.id}` }), 401);
  validates(t, path, await app.inject({ url: '/api/courses/987654', headers: key }), 404);
  validates(t, path, await app.inject({ url: `/api/courses/${draft.id}`, headers: key }), 404);
});

t.test('GET /api/recommended-courses: 200, 400, 401', async (t) => {
  const path = '/api/recommended-courses';
  for (const headers of [key, studentSession]) {
    const res = await app.inject({ url: path, headers });
    t.equal(res.json().recommendedCourses.length, 2);
    validates(t, path, res, 200);
  }
  validates(t, path, await app.inject({ url: `${path}?categoryId=x`, headers: key }), 400);
  validates(t, path, await app.inject({ url: path }), 401);
});

t.test('every catalog response is described, errors with the ErrorResponse schema', async (t) => {
  const statuses: Record<string, string[]> = {
    '/api/courses': ['200', '400', '401', '429', '500', '503'],
    '/api/courses/{id}': ['200', '400', '401', '404', '429', '500', '503'],
    '/api/recommended-courses': ['200', '400', '401', '429', '500', '503'],
  };
  for (const [path, expected] of Object.entries(statuses)) {
    const responses = doc.paths[path].get.responses;
    t.same(Object.keys(responses).sort(), expected.sort(), `${path} statuses`);
    for (const status of expected.filter((s) => s !== '200')) {
      t.same(responses[status].content['application/json'].schema, { $ref: '#/components/schemas/ErrorResponse' }, `${path} ${status}`);
      t.ok(responses[status].description, `${path} ${status} has a description`);
    }
    t.same(doc.paths[path].get.security, [{ apiKey: [] }, { session: [] }]);
  }
  t.match(doc.paths['/api/courses'].get.description, /Unlock rule/);
  const params = doc.paths['/api/courses'].get.parameters.map((p: { name: string }) => p.name).sort();
  t.same(params, ['categoryId', 'courseId', 'limit', 'page', 'public', 'search', 'sortBy']);
});
